#!/bin/sh
# Installs what the real-browser tests need: Debian's Chromium, its chromedriver and a colour emoji
# font (apt), then the pinned Python packages (pip). Idempotent: apt is only asked when a package is
# missing, and pip leaves satisfied pins alone.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

packages="chromium chromium-driver fonts-noto-color-emoji"
missing=""
for package in $packages; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $package"
    fi
done
if [ -n "$missing" ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "install.sh: installing$missing (apt)"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $packages
fi

PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --disable-pip-version-check -r "$here/requirements.txt"
