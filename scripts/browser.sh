#!/usr/bin/env bash
# Installs from Debian what the HTML reports' browser tests and screenshots
# need. Chromium is driven headless by the Go tests through chromedp
# (internal/testkit/headless). A CJK font is needed because the shipped eval
# set is in Chinese and English: without it the screenshots show boxes.
# Idempotent: nothing is installed twice. RAG_CHROMIUM names another
# Chromium or Chrome to use instead, and nothing is then installed.
set -euo pipefail

if [ -n "${RAG_CHROMIUM:-}" ]; then
	"$RAG_CHROMIUM" --version
	exit 0
fi
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
[ -e /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ] || need+=(fonts-wqy-microhei)
if [ ${#need[@]} -gt 0 ]; then
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "browser.sh: no apt-get: install ${need[*]} yourself, or set RAG_CHROMIUM to a Chromium or Chrome" >&2
		exit 1
	fi
	SUDO=
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
chromium --version
