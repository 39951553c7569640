#!/usr/bin/env bash
# make fuzz: every fuzz target of the module, each func FuzzX in a _test.go
# file, for FUZZTIME each. The targets are found anew each run, so that none
# is left out. New interesting inputs are minimised for at most
# FUZZMINIMIZE. Go's default, 60 s of execs it does not count, made the
# fuzzers look stalled at 0/sec.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-30s}
FUZZMINIMIZE=${FUZZMINIMIZE:-5s}

n=0
while read -r pkg dir; do
	while read -r target; do
		echo "make fuzz: $target $pkg"
		"$GO" test -run '^$' -fuzz "^$target\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZE" "$pkg" </dev/null
		n=$((n + 1))
	done < <(cat "$dir"/*_test.go 2>/dev/null | sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' | sort -u)
done < <("$GO" list -f '{{.ImportPath}} {{.Dir}}' ./...)
echo "make fuzz: $n targets, $FUZZTIME each"
