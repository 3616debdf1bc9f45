#!/bin/sh
# Installs the pinned Python packages of the App Store Server API check (pip leaves satisfied pins alone).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --disable-pip-version-check -r "$here/requirements.txt"
