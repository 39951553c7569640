package usem3

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
)

// npyBytes encodes a .npy stream (format 1.0, or 2.0 when v2).
func npyBytes(descr, fortran, shape string, data []byte, v2 bool) []byte {
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, fortran, shape)
	pre := 10
	if v2 {
		pre = 12
	}
	for (pre+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY")
	if v2 {
		b.Write([]byte{2, 0})
		binary.Write(&b, binary.LittleEndian, uint32(len(h)))
	} else {
		b.Write([]byte{1, 0})
		binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	}
	b.WriteString(h)
	b.Write(data)
	return b.Bytes()
}

func f32Bytes(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// npzBytes zips the members (deflated, like np.savez_compressed).
func npzBytes(t *testing.T, members map[string][]byte, order ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, name := range order {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(members[name])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadNpz(t *testing.T) {
	var f64 [8]byte
	binary.LittleEndian.PutUint64(f64[:], math.Float64bits(1e-12))
	members := map[string][]byte{
		"a.npy":      npyBytes("<f4", "False", "(2, 3)", f32Bytes(1, 2, 3, 4, 5, -6.5), false),
		"q1.npy":     npyBytes("|u1", "False", "(4,)", []byte{0, 1, 62, 63}, true),
		"bits.npy":   npyBytes("|i1", "False", "(1,)", []byte{6}, false),
		"eps.npy":    npyBytes("<f8", "False", "()", f64[:], false),
		"README.txt": []byte("not an array"),
	}
	data := npzBytes(t, members, "a.npy", "q1.npy", "bits.npy", "eps.npy", "README.txt")
	z, err := readNpz(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(z) != 4 {
		t.Errorf("read %d arrays, want 4 (non-.npy members skipped)", len(z))
	}
	a, err := z.float32s("a", 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float32{1, 2, 3, 4, 5, -6.5}; fmt.Sprint(a) != fmt.Sprint(want) {
		t.Errorf("a = %v, want %v", a, want)
	}
	q, err := z.array("q1", "|u1", 4)
	if err != nil || !bytes.Equal(q.data, []byte{0, 1, 62, 63}) {
		t.Errorf("q1 = %v, %v", q, err)
	}
	if eps, err := z.float64Scalar("eps"); err != nil || eps != 1e-12 {
		t.Errorf("eps = %v, %v", eps, err)
	}
	for _, c := range []struct {
		name, dtype string
		shape       []int
		want        string
	}{
		{"a", "<f4", []int{3, 2}, "shape [2 3], want [3 2]"},
		{"a", "|u1", []int{2, 3}, "dtype <f4, want |u1"},
		{"nope", "<f4", nil, "array nope is missing"},
	} {
		if _, err := z.array(c.name, c.dtype, c.shape...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("array(%s, %s, %v) error = %v, want %q", c.name, c.dtype, c.shape, err, c.want)
		}
	}
}

func TestReadNpyErrors(t *testing.T) {
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"magic":    {[]byte("PK\x03\x04 not npy at all"), "bad magic"},
		"short":    {[]byte("\x93NU"), "magic"},
		"version":  {append([]byte("\x93NUMPY\x09\x00"), 0, 0), "version 9.0"},
		"fortran":  {npyBytes("<f4", "True", "(1,)", f32Bytes(1), false), "Fortran"},
		"dtype":    {npyBytes("<c16", "False", "(1,)", make([]byte, 16), false), "unsupported npy dtype"},
		"bigend":   {npyBytes(">f4", "False", "(1,)", f32Bytes(1), false), "unsupported npy dtype"},
		"shape":    {npyBytes("<f4", "False", "(2, x)", nil, false), "malformed shape"},
		"truncate": {npyBytes("<f4", "False", "(4,)", f32Bytes(1, 2), false), "reading 16 bytes"},
		"header":   {[]byte("\x93NUMPY\x01\x00\x05\x00{'a'}"), "malformed npy header"},
		"key":      {npyBytes("<f4", "False", "(1,)", f32Bytes(1), false)[:10], "reading npy header"},
	} {
		_, err := readNpy(bytes.NewReader(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error = %v, want it to contain %q", name, err, c.want)
		}
	}
}

func TestReadNpzCorrupt(t *testing.T) {
	arr := npyBytes("<f4", "False", "(64,)", make([]byte, 256), false)
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "a.npy", Method: zip.Store})
	w.Write(arr)
	zw.Close()
	data := b.Bytes()
	// Flip a byte of the stored data: the CRC no longer matches.
	i := bytes.Index(data, arr) + len(arr) - 1
	data[i] ^= 0xff
	if _, err := readNpz(bytes.NewReader(data), int64(len(data))); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("corrupt member: error = %v, want a checksum error", err)
	}
	if _, err := readNpz(bytes.NewReader([]byte("garbage")), 7); err == nil {
		t.Error("garbage read as an npz")
	}
	// Trailing data after the array is an error too.
	extra := append(append([]byte{}, arr...), 1, 2, 3)
	data = npzBytes(t, map[string][]byte{"a.npy": extra}, "a.npy")
	if _, err := readNpz(bytes.NewReader(data), int64(len(data))); err == nil || !strings.Contains(err.Error(), "after the array") {
		t.Errorf("trailing bytes: error = %v", err)
	}
}

func TestFloat32sRejectsNonFinite(t *testing.T) {
	data := npzBytes(t, map[string][]byte{
		"w.npy": npyBytes("<f4", "False", "(2,)", f32Bytes(1, float32(math.Inf(1))), false),
	}, "w.npy")
	z, err := readNpz(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := z.float32s("w", 2); err == nil || !strings.Contains(err.Error(), "non-finite") {
		t.Errorf("error = %v", err)
	}
}
