// Command distpack packs make dist's staging directories into reproducible
// archives and writes their checksums. docs/release.md describes the
// release.
//
//	go run ./tools/distpack -out dist -mtime 1767225600 dist/.stage/ragbaseline_v1.0.0_linux_amd64 …
//
// Each DIR becomes OUT/<base of DIR>.tar.gz holding <base of DIR>/ and
// DIR's regular files, in name order. DIR's subdirectories are left out.
// Nothing of the machine that packs gets in. Every entry has the
// modification time -mtime, in seconds since 1970, and make dist passes the
// commit's time. Every entry has owner and group 0 without names. Its mode
// is 0755 when the staged file is executable by its owner, else 0644. The
// gzip header has no name and no time. The same files and the same Go
// release give the same bytes.
//
// Then OUT/SHA256SUMS lists every OUT/*.tar.gz as sha256sum writes it, "HEX
// NAME" in name order. So `sha256sum -c SHA256SUMS` checks a download, and
// so does `shasum -a 256 -c`.
package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/atomicfile"
)

func main() {
	out := flag.String("out", "dist", "directory of the archives and SHA256SUMS")
	mtime := flag.Int64("mtime", 0, "modification time of every archive entry, in seconds since 1970 (SOURCE_DATE_EPOCH)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: distpack [-out DIR] [-mtime SECONDS] STAGEDIR...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*out, time.Unix(*mtime, 0).UTC(), flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "distpack:", err)
		os.Exit(1)
	}
}

func run(out string, mtime time.Time, dirs []string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, dir := range dirs {
		name := filepath.Base(filepath.Clean(dir))
		err := atomicfile.Write(filepath.Join(out, name+".tar.gz"), 0o644, func(w io.Writer) error {
			return pack(w, dir, name, mtime)
		})
		if err != nil {
			return fmt.Errorf("pack %s: %w", dir, err)
		}
	}
	sums, err := checksums(out)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(out, "SHA256SUMS"), sums, 0o644)
}

// pack writes dir's regular files as a gzipped tar under the directory
// entry prefix/.
func pack(w io.Writer, dir, prefix string, mtime time.Time) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	hdr := func(name string, mode int64, size int64, typ byte) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: mode, Size: size, ModTime: mtime, Format: tar.FormatUSTAR}
	}
	if err := tw.WriteHeader(hdr(prefix+"/", 0o755, 0, tar.TypeDir)); err != nil {
		return err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		} else if !e.IsDir() {
			return fmt.Errorf("%s: not a regular file", filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(names)
	for _, n := range names {
		if err := addFile(tw, filepath.Join(dir, n), func(size int64, exec bool) *tar.Header {
			mode := int64(0o644)
			if exec {
				mode = 0o755
			}
			return hdr(prefix+"/"+n, mode, size, tar.TypeReg)
		}); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func addFile(tw *tar.Writer, path string, header func(size int64, exec bool) *tar.Header) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(header(fi.Size(), fi.Mode().Perm()&0o100 != 0)); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}

// checksums is SHA256SUMS for the archives in dir.
func checksums(dir string) ([]byte, error) {
	archives, err := filepath.Glob(filepath.Join(dir, "*.tar.gz"))
	if err != nil {
		return nil, err
	}
	slices.Sort(archives)
	var b strings.Builder
	for _, a := range archives {
		data, err := os.ReadFile(a)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), filepath.Base(a))
	}
	return []byte(b.String()), nil
}
