#!/bin/sh
# Installs the Debian/Ubuntu packages it is given, with apt-get, as root or
# through sudo; nothing when it is given none.  The one installer behind
# install-system-deps.sh and install-test-deps.sh, which find what is missing.
#
# Usage: install-missing-deps.sh MAKE_COMMAND NOTE [PACKAGE...]
#   MAKE_COMMAND  the command the user ran ("make", "make test"), named when
#                 neither root nor sudo is at hand;
#   NOTE          said after the packages while installing ("" or
#                 " (for the tests)").
set -eu

make_command=$1
note=$2
shift 2
[ $# -eq 0 ] && exit 0
missing=" $*"

if ! command -v apt-get >/dev/null 2>&1; then
    echo "collsim: missing:$missing; install them with your system's package manager" >&2
    exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || {
        echo "collsim: missing:$missing; run '$make_command' as root or install sudo" >&2
        exit 1
    }
    sudo=sudo
fi
echo "collsim: installing$missing$note"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
