package mapped

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// stdDecode is encoding/json's reading of a body for jq, the reference of
// decodeJSON: UseNumber, and nothing but white space after the value.
func stdDecode(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if len(bytes.Trim(body[dec.InputOffset():], " \t\r\n")) > 0 {
		return nil, errMoreValues
	}
	return v, nil
}

var decodeSamples = []string{
	`{}`, `[]`, `""`, `0`, `-0.5e+3`, `true`, `false`, `null`, ` {"a": [1, 2, {"b": null}], "c": "d"} `,
	`{"a": 1, "a": 2}`, `"\u00e9\ud83d\ude00\ud800x\\\/\b\f\n\r\t\""`, "\"caf\xe9\"", `{"\u0041": "k"}`,
	`{"hits": [{"docId": "a", "score": 0.5}, {"docId": "b", "score": 1e-3}]}`,
	// Refused, each with encoding/json's message.
	``, ` `, `{`, `[1,]`, `{"a" 1}`, `{"a":1,}`, `01`, `1.`, `-`, `1e`, `tru`, `nul`, `"\x"`, "\"a\nb\"", `"\u12"`,
	`{} x`, `{} ]`, `1 2`, `[1] [2]`, `{"a":1}}`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
}

// TestDecodeJSONAsEncodingJSON: decodeJSON builds what encoding/json
// builds, and refuses what it refuses with its message.
func TestDecodeJSONAsEncodingJSON(t *testing.T) {
	for _, s := range decodeSamples {
		checkDecode(t, []byte(s))
	}
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range decodeSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		done := make(chan struct{})
		go func() {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				panic(fmt.Sprintf("decodeJSON hangs on %q", body))
			}
		}()
		defer close(done)
		checkDecode(t, body)
	})
}

func checkDecode(t *testing.T, body []byte) {
	t.Helper()
	got, err := decodeJSON(body)
	want, werr := stdDecode(body)
	switch {
	case werr != nil:
		if err == nil || err.Error() != werr.Error() {
			t.Errorf("%.80q: got error %v, want %v", body, err, werr)
		}
	case err != nil:
		t.Errorf("%.80q: got error %v, want %v", body, err, want)
	case !reflect.DeepEqual(got, want):
		t.Errorf("%.80q: got %#v, want %#v", body, got, want)
	}
}

// TestDecodeCostBoundsTheHeap: what scan reckons a body takes decoded is
// at least what the decoded value holds on the heap, for the shapes a
// response can have, and not far above it.
func TestDecodeCostBoundsTheHeap(t *testing.T) {
	shapes := map[string]func(i int) string{
		"one-key objects": func(i int) string { return `{"a":0}` },
		"blocks":          func(i int) string { return fmt.Sprintf(`{"docId":"doc-%07d","score":0.%03d}`, i, i%1000) },
		"empty objects":   func(i int) string { return `{}` },
		"wide objects": func(i int) string {
			return fmt.Sprintf(`{"a":%d,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":"é%d"}`, i, i)
		},
		"nested arrays": func(i int) string { return `[[1],[2,3]]` },
		"long strings":  func(i int) string { return `"` + strings.Repeat("x", 100+i%50) + `"` },
	}
	for name, item := range shapes {
		var b strings.Builder
		b.WriteByte('[')
		for i := range 100000 {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(item(i))
		}
		b.WriteByte(']')
		body := []byte(b.String())
		s, err := scan(body)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		v := build(body, s)
		runtime.GC()
		runtime.ReadMemStats(&after)
		held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		runtime.KeepAlive(v)
		runtime.KeepAlive(body) // freed before the second GC, it would count against the value
		// The scratch space is not held after the build.
		values := s.cost - costSlot*int64(s.maxValues+s.maxKeys)
		t.Logf("%s: %d bytes of JSON, %d held, %d reckoned (%.1f times the JSON)", name, len(body), held, values, float64(values)/float64(len(body)))
		if held > values || values > 2*held {
			t.Errorf("%s: the decoded value holds %d bytes, reckoned %d: want held ≤ reckoned ≤ 2 × held", name, held, values)
		}
	}
}

func TestDecodeErrorsAreEncodingJSONs(t *testing.T) {
	_, err := decodeJSON([]byte(`{"a": tru}`))
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		t.Errorf("got %v (%T), want a *json.SyntaxError", err, err)
	}
}
