#!/bin/sh
# The end-to-end suite drives a real Medusa shop (e2e/medusa) with its own lockfile; root npm ci runs this script
# (postinstall), so the shop's packages stay out of the root's. Its install is skipped when node_modules was made from
# the same lockfile.
set -eu
# An install without dev dependencies (npm ci --omit=dev) runs no tests, so it needs no shop.
case "${npm_config_omit:-}" in *dev*) exit 0 ;; esac
SHOP="$(cd "$(dirname "$0")/../e2e/medusa" && pwd)"
STAMP="$SHOP/node_modules/.lockfile-sha256"
WANTED="$(sha256sum "$SHOP/package-lock.json" | cut -d' ' -f1)"
# Two runs at once would both install into the same folder: they take turns, and the second finds it done.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${TMPDIR:-/tmp}/ensure-medusa.lock"
  flock 9
fi
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANTED" ]; then
  exit 0
fi
echo "ensure-medusa: installing the Medusa shop in e2e/medusa (a few minutes, about 750 MB)" >&2
START="$(date +%s)"
(cd "$SHOP" && npm ci --no-audit --no-fund --loglevel=error >&2)
echo "$WANTED" >"$STAMP"
echo "ensure-medusa: installed in $(($(date +%s) - START)) s" >&2
