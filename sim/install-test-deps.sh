#!/bin/sh
# Installs the system packages only the tests need, and only when missing:
# Chromium (headless, to check that the study report renders).  Debian/Ubuntu;
# as root, or through sudo.  A second run finds everything and installs nothing.
set -eu

missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"

[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "collsim: missing:$missing; install them with your system's package manager" >&2
    exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || {
        echo "collsim: missing:$missing; run 'make test' as root or install sudo" >&2
        exit 1
    }
    sudo=sudo
fi
echo "collsim: installing$missing (for the tests)"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
