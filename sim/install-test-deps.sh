#!/bin/sh
# Installs the system packages only the tests need, and only when missing:
# Chromium (headless, to check that the study report renders).  Debian/Ubuntu;
# as root, or through sudo.  A second run finds everything and installs nothing.
set -eu

missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"

# $missing is left unquoted: one argument a package.
exec "$(dirname "$0")/install-missing-deps.sh" "make test" " (for the tests)" $missing
