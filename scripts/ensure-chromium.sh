#!/bin/sh
# The browser tests drive Debian's chromium (test/support/browser.ts). A clean machine may lack it: install it
# with apt-get, as root or through sudo, and say plainly what to do when neither is possible.
set -eu
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$CHROMIUM" ] && exit 0
# Two clones tested at once on a clean machine would both run apt-get, and the second would stop at apt's lock:
# they take turns here, and the second finds chromium installed.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${TMPDIR:-/tmp}/ensure-chromium.lock"
  flock 9
  [ -x "$CHROMIUM" ] && exit 0
fi
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
# Waits for a lock held by anything else using apt, rather than failing at once.
$AS_ROOT apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends chromium >&2
[ -x "$CHROMIUM" ]
