#!/bin/sh
# The browser tests drive Debian's chromium (test/support/browser.ts). A clean machine may lack it: install it
# with apt-get, as root or through sudo, and say plainly what to do when neither is possible.
set -eu
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$CHROMIUM" ] && exit 0
echo "ensure-chromium: $CHROMIUM is missing; installing Debian's chromium with apt-get (about a minute)" >&2
if [ "$(id -u)" = 0 ]; then
  AS_ROOT=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  AS_ROOT="sudo -n"
else
  echo "ensure-chromium: run 'apt-get install -y chromium' as root, or set CHROMIUM_PATH to a chromium binary" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$AS_ROOT apt-get update -qq >&2
$AS_ROOT apt-get install -y -qq --no-install-recommends chromium >&2
[ -x "$CHROMIUM" ]
