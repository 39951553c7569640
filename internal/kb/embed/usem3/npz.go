package usem3

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/kb/embed"
)

// npyArray is one array of a .npy file: its dtype (the numpy descr, such as
// "<f4"), its shape, and its data in C order, undecoded.
type npyArray struct {
	dtype string
	shape []int
	data  []byte
}

// npy dtypes this reader decodes, with their item sizes. Every array of
// weights.npz is one of these.
var npyItemSize = map[string]int{
	"|u1": 1, "<u1": 1, "u1": 1,
	"|i1": 1, "<i1": 1, "i1": 1,
	"<f4": 4,
	"<f8": 8,
}

// readNpy parses one .npy stream (format versions 1.0, 2.0 and 3.0): the
// magic, the header dictionary, then the data. Fortran-ordered arrays,
// big-endian and object dtypes are errors.
func readNpy(r io.Reader) (*npyArray, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, fmt.Errorf("reading npy magic: %w", err)
	}
	if string(pre[:6]) != "\x93NUMPY" {
		return nil, fmt.Errorf("not a .npy stream (bad magic %q)", pre[:6])
	}
	var hlen int
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("reading npy header length: %w", err)
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("reading npy header length: %w", err)
		}
		hlen = int(binary.LittleEndian.Uint32(b[:]))
		if hlen > 1<<20 {
			return nil, fmt.Errorf("npy header of %d bytes is too long", hlen)
		}
	default:
		return nil, fmt.Errorf("unsupported npy format version %d.%d", pre[6], pre[7])
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, fmt.Errorf("reading npy header: %w", err)
	}
	a, err := parseNpyHeader(string(hdr))
	if err != nil {
		return nil, err
	}
	n := npyItemSize[a.dtype]
	for _, d := range a.shape {
		if d != 0 && n > math.MaxInt32/d {
			return nil, fmt.Errorf("npy array of shape %v is too large", a.shape)
		}
		n *= d
	}
	a.data = make([]byte, n)
	if _, err := io.ReadFull(r, a.data); err != nil {
		return nil, fmt.Errorf("reading %d bytes of npy data of shape %v: %w", n, a.shape, err)
	}
	return a, nil
}

// parseNpyHeader reads the Python dict literal of a .npy header, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (512, 256), }.
func parseNpyHeader(h string) (*npyArray, error) {
	h = strings.TrimSpace(h)
	if !strings.HasPrefix(h, "{") || !strings.HasSuffix(h, "}") {
		return nil, fmt.Errorf("malformed npy header %q", h)
	}
	a := &npyArray{}
	var haveDescr, haveOrder, haveShape bool
	s := strings.TrimSpace(h[1 : len(h)-1])
	for s != "" {
		key, rest, ok := cutQuoted(s)
		if !ok {
			return nil, fmt.Errorf("malformed npy header %q", h)
		}
		rest = strings.TrimSpace(rest)
		if !strings.HasPrefix(rest, ":") {
			return nil, fmt.Errorf("malformed npy header %q", h)
		}
		rest = strings.TrimSpace(rest[1:])
		switch key {
		case "descr":
			var v string
			v, rest, ok = cutQuoted(rest)
			if !ok {
				return nil, fmt.Errorf("malformed descr in npy header %q", h)
			}
			if _, known := npyItemSize[v]; !known {
				return nil, fmt.Errorf("unsupported npy dtype %q (supported: uint8, int8, little-endian float32 and float64)", v)
			}
			a.dtype, haveDescr = v, true
		case "fortran_order":
			switch {
			case strings.HasPrefix(rest, "False"):
				rest = rest[len("False"):]
			case strings.HasPrefix(rest, "True"):
				return nil, fmt.Errorf("unsupported Fortran-ordered npy array")
			default:
				return nil, fmt.Errorf("malformed fortran_order in npy header %q", h)
			}
			haveOrder = true
		case "shape":
			end := strings.IndexByte(rest, ')')
			if !strings.HasPrefix(rest, "(") || end < 0 {
				return nil, fmt.Errorf("malformed shape in npy header %q", h)
			}
			a.shape = []int{}
			for f := range strings.SplitSeq(rest[1:end], ",") {
				f = strings.TrimSpace(f)
				if f == "" {
					continue
				}
				d, err := strconv.Atoi(f)
				if err != nil || d < 0 {
					return nil, fmt.Errorf("malformed shape in npy header %q", h)
				}
				a.shape = append(a.shape, d)
			}
			rest = rest[end+1:]
			haveShape = true
		default:
			return nil, fmt.Errorf("unexpected key %q in npy header %q", key, h)
		}
		rest = strings.TrimSpace(rest)
		rest = strings.TrimPrefix(rest, ",")
		s = strings.TrimSpace(rest)
	}
	if !haveDescr || !haveOrder || !haveShape {
		return nil, fmt.Errorf("npy header %q lacks descr, fortran_order or shape", h)
	}
	return a, nil
}

// cutQuoted splits a leading Python string literal ('…' or "…", no escapes)
// off s.
func cutQuoted(s string) (val, rest string, ok bool) {
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return "", s, false
	}
	end := strings.IndexByte(s[1:], s[0])
	if end < 0 {
		return "", s, false
	}
	return s[1 : 1+end], s[2+end:], true
}

// npz is the arrays of an .npz archive by name (without ".npy").
type npz map[string]*npyArray

// readNpz reads every member of the .npz (zip, stored or deflated) at r.
func readNpz(r io.ReaderAt, size int64) (npz, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, err
	}
	out := npz{}
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("member %s: %w", f.Name, err)
		}
		a, err := readNpy(rc)
		if err == nil {
			// Read to the end so that the zip reader verifies the CRC.
			var extra int64
			extra, err = io.Copy(io.Discard, rc)
			if err == nil && extra != 0 {
				err = fmt.Errorf("%d bytes after the array data", extra)
			}
		}
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("member %s: %w", f.Name, err)
		}
		out[name] = a
	}
	return out, nil
}

// array returns the named array after checking its dtype and shape.
func (z npz) array(name, dtype string, shape ...int) (*npyArray, error) {
	a, ok := z[name]
	if !ok {
		return nil, fmt.Errorf("array %s is missing", name)
	}
	if a.dtype != dtype && strings.TrimLeft(a.dtype, "|<") != strings.TrimLeft(dtype, "|<") {
		return nil, fmt.Errorf("array %s has dtype %s, want %s", name, a.dtype, dtype)
	}
	if len(a.shape) != len(shape) {
		return nil, fmt.Errorf("array %s has shape %v, want %v", name, a.shape, shape)
	}
	for i := range shape {
		if a.shape[i] != shape[i] {
			return nil, fmt.Errorf("array %s has shape %v, want %v", name, a.shape, shape)
		}
	}
	return a, nil
}

// float32s returns the named float32 array of the given shape.
func (z npz) float32s(name string, shape ...int) ([]float32, error) {
	a, err := z.array(name, "<f4", shape...)
	if err != nil {
		return nil, err
	}
	v, err := embed.DecodeVector(a.data) // little-endian float32, as <f4 is
	if err != nil {
		return nil, fmt.Errorf("array %s: %w", name, err)
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("array %s has a non-finite value at %d", name, i)
		}
	}
	return v, nil
}

// float64Scalar returns the named 0-d float64 array.
func (z npz) float64Scalar(name string) (float64, error) {
	a, err := z.array(name, "<f8")
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(a.data)), nil
}
