#!/usr/bin/env bash
# Installs Debian's Chromium for the app's end-to-end tests (Playwright drives it; Playwright's
# own browser download is never used). Idempotent: does nothing when /usr/bin/chromium exists.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
    echo "install-browser: /usr/bin/chromium already present ($(/usr/bin/chromium --version 2>/dev/null || echo 'version unknown'))"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "install-browser: need root (or sudo) to apt-get install chromium" >&2
        exit 1
    fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y chromium

if [ ! -x /usr/bin/chromium ]; then
    echo "install-browser: apt-get finished but /usr/bin/chromium is missing" >&2
    exit 1
fi
echo "install-browser: installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
