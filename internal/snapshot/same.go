package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Same reports whether two fixture files hold the same result: equal as
// JSON once the top-level retrievedAt and every latencyMs, at any depth,
// are removed. Keys are compared regardless of order, numbers by their
// text. A file that is not one JSON value is never the same as anything.
func Same(old, new []byte) bool {
	if bytes.Equal(old, new) {
		return true
	}
	return sameJSON(old, new, []string{"retrievedAt"}, []string{"latencyMs"})
}

// sameJSON compares a and b as JSON after removing the keys top from the
// top-level object and the keys deep from every object.
func sameJSON(a, b []byte, top, deep []string) bool {
	ca, err := canonical(a, top, deep)
	if err != nil {
		return false
	}
	cb, err := canonical(b, top, deep)
	if err != nil {
		return false
	}
	return bytes.Equal(ca, cb)
}

// canonical re-encodes data with sorted keys and numbers as written, the
// given keys removed.
func canonical(data []byte, top, deep []string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	if m, ok := v.(map[string]any); ok {
		for _, k := range top {
			delete(m, k)
		}
	}
	if len(deep) > 0 {
		strip(v, deep)
	}
	return json.Marshal(v)
}

func strip(v any, keys []string) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range keys {
			delete(v, k)
		}
		for _, e := range v {
			strip(e, keys)
		}
	case []any:
		for _, e := range v {
			strip(e, keys)
		}
	}
}
