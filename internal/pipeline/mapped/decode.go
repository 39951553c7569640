package mapped

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// jq runs on Go values, so a response is decoded whole before any program
// reads it. Decoded, JSON takes far more memory than its text: an object
// is a Go map of at least 336 bytes, so `{"a":0},` (8 bytes) takes about
// 48 times its size, and a 64 MiB answer of such objects about 3 GB. The
// decoder here therefore reads a body twice. The first pass checks the
// syntax and adds up what the values will take (decodeCost). Only when
// that is within the limit does the second pass build them. It builds
// what encoding/json with UseNumber builds (map[string]any, []any,
// string, json.Number, bool, nil), from the body itself rather than from
// a copy. Slices and maps are made at their final size, so no growth is
// left behind as garbage.

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// errSyntax marks a body the first pass refused. encoding/json then says
// why, in its own words.
var errSyntax = errors.New("invalid JSON")

// errMoreValues is a body holding something after its first value.
var errMoreValues = errors.New("more than one JSON value")

// The sizes of what the decoder allocates, measured with Go 1.26 on
// amd64 (runtime.MemStats around a million values), rounded up. A map of
// 1 to 8 entries is one group of 8 slots. A larger one costs up to 84
// bytes an entry. A string or a number boxed in an interface is a 16-byte
// header and its bytes.
const (
	costEmptyMap  = 48
	costSmallMap  = 336
	costMapEntry  = 84
	costBoxed     = 16
	costSliceHead = 24
	costSlot      = 16 // an interface value: a slice element, a pending value or key
)

// allocCost bounds what an allocation of n bytes takes: a size class
// wastes at most an eighth.
func allocCost(n int) int64 {
	if n <= 0 {
		return 0
	}
	return int64((n+7)&^7 + n/8)
}

func mapCost(n int) int64 {
	switch {
	case n == 0:
		return costEmptyMap
	case n <= 8:
		return costSmallMap
	}
	return costEmptyMap + costMapEntry*int64(n)
}

// scanned is what the first pass learnt of a body.
type scanned struct {
	// cost is what decoding it takes, in bytes: the values and the
	// decoder's scratch space.
	cost int64
	// The most members of open objects and arrays held at once.
	maxValues, maxKeys int
}

// scan checks that body is one JSON value with nothing but white space
// around it, and reckons what decoding it takes. It allocates nothing. Its
// error is encoding/json's, or errMoreValues.
func scan(body []byte) (scanned, error) {
	d := jsonDecoder{b: body}
	if err := d.top(); err != nil {
		if serr := stdDecodeError(body); serr != nil {
			return scanned{}, serr
		}
		return scanned{}, err
	}
	return scanned{
		cost:      d.cost + costSlot*int64(d.maxPendingValues+d.maxPendingKeys),
		maxValues: d.maxPendingValues,
		maxKeys:   d.maxPendingKeys,
	}, nil
}

// build decodes a body scan accepted.
func build(body []byte, s scanned) any {
	d := jsonDecoder{b: body, build: true,
		values: make([]any, 0, s.maxValues),
		keys:   make([]string, 0, s.maxKeys)}
	if d.top() != nil {
		panic("mapped: build of a body scan refused")
	}
	return d.v
}

// decodeJSON decodes a body for jq, whatever it takes: numbers stay
// exact (json.Number, which gojq reads).
func decodeJSON(body []byte) (any, error) {
	s, err := scan(body)
	if err != nil {
		return nil, err
	}
	return build(body, s), nil
}

// jsonDecoder is one pass over a body. With build false it only checks and
// counts. With build true it makes the values, keeping the members of the
// objects and arrays not yet closed on values and keys, to make each
// object and array at its final size.
type jsonDecoder struct {
	b     []byte
	i     int
	depth int
	build bool
	v     any // the value read last, when building

	cost                             int64
	values                           []any
	keys                             []string
	pendingValues, pendingKeys       int
	maxPendingValues, maxPendingKeys int
}

// top reads the body's one value.
func (d *jsonDecoder) top() error {
	if err := d.value(); err != nil {
		return err
	}
	d.space()
	if d.i < len(d.b) {
		return errMoreValues
	}
	return nil
}

func (d *jsonDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jsonDecoder) value() error {
	d.space()
	if d.i >= len(d.b) {
		return errSyntax
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		s, err := d.str()
		if err != nil {
			return err
		}
		d.cost += costBoxed
		if d.build {
			d.v = s
		}
		return nil
	case c == 't':
		return d.literal("true", true)
	case c == 'f':
		return d.literal("false", false)
	case c == 'n':
		return d.literal("null", nil)
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	}
	return errSyntax
}

func (d *jsonDecoder) literal(word string, v any) error {
	if !bytes.HasPrefix(d.b[d.i:], []byte(word)) {
		return errSyntax
	}
	d.i += len(word)
	d.v = v
	return nil
}

func (d *jsonDecoder) push(v any) {
	d.pendingValues++
	d.maxPendingValues = max(d.maxPendingValues, d.pendingValues)
	if d.build {
		d.values = append(d.values, v)
	}
}

func (d *jsonDecoder) object() error {
	d.i++ // {
	if d.depth++; d.depth > maxDepth {
		return errSyntax
	}
	markV, markK := len(d.values), len(d.keys)
	n := 0
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
	} else {
		for {
			d.space()
			if d.i >= len(d.b) || d.b[d.i] != '"' {
				return errSyntax
			}
			k, err := d.str()
			if err != nil {
				return err
			}
			d.space()
			if d.i >= len(d.b) || d.b[d.i] != ':' {
				return errSyntax
			}
			d.i++
			if err := d.value(); err != nil {
				return err
			}
			d.pendingKeys++
			d.maxPendingKeys = max(d.maxPendingKeys, d.pendingKeys)
			if d.build {
				d.keys = append(d.keys, k)
			}
			d.push(d.v)
			n++
			d.space()
			if d.i < len(d.b) && d.b[d.i] == ',' {
				d.i++
				continue
			}
			if d.i < len(d.b) && d.b[d.i] == '}' {
				d.i++
				break
			}
			return errSyntax
		}
	}
	d.depth--
	d.pendingValues -= n
	d.pendingKeys -= n
	d.cost += mapCost(n)
	if d.build {
		m := make(map[string]any, n)
		for j, k := range d.keys[markK:] {
			m[k] = d.values[markV+j] // a repeated key: the last one wins, as in encoding/json
		}
		d.keys, d.values = d.keys[:markK], d.values[:markV]
		d.v = m
	}
	return nil
}

func (d *jsonDecoder) array() error {
	d.i++ // [
	if d.depth++; d.depth > maxDepth {
		return errSyntax
	}
	mark := len(d.values)
	n := 0
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
	} else {
		for {
			if err := d.value(); err != nil {
				return err
			}
			d.push(d.v)
			n++
			d.space()
			if d.i < len(d.b) && d.b[d.i] == ',' {
				d.i++
				continue
			}
			if d.i < len(d.b) && d.b[d.i] == ']' {
				d.i++
				break
			}
			return errSyntax
		}
	}
	d.depth--
	d.pendingValues -= n
	d.cost += costSliceHead + allocCost(costSlot*n)
	if d.build {
		a := make([]any, n)
		copy(a, d.values[mark:])
		d.values = d.values[:mark]
		d.v = a
	}
	return nil
}

// str reads a string at d.i, its quotes included. Its cost is counted,
// not that of boxing it: a key is not boxed.
func (d *jsonDecoder) str() (string, error) {
	start := d.i
	d.i++         // "
	plain := true // no escape, no byte outside ASCII
	for {
		if d.i >= len(d.b) {
			return "", errSyntax
		}
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return d.finishStr(start, plain)
		case c == '\\':
			plain = false
			if d.i+1 >= len(d.b) {
				return "", errSyntax
			}
			switch d.b[d.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.i += 2
			case 'u':
				if d.i+6 > len(d.b) {
					return "", errSyntax
				}
				for _, h := range d.b[d.i+2 : d.i+6] {
					if !isHex(h) {
						return "", errSyntax
					}
				}
				d.i += 6
			default:
				return "", errSyntax
			}
		case c < 0x20:
			return "", errSyntax
		case c >= utf8.RuneSelf:
			plain = false
			d.i++
		default:
			d.i++
		}
	}
}

// finishStr counts and, when building, makes the string b[start:d.i],
// quotes included.
func (d *jsonDecoder) finishStr(start int, plain bool) (string, error) {
	raw := d.b[start+1 : d.i-1]
	if plain || !bytes.ContainsRune(raw, '\\') && utf8.Valid(raw) {
		d.cost += allocCost(len(raw))
		if d.build {
			return string(raw), nil
		}
		return "", nil
	}
	// Escapes shorten a string. An invalid byte becomes U+FFFD, 3 bytes.
	d.cost += allocCost(3 * len(raw))
	if !d.build {
		return "", nil
	}
	// encoding/json unquotes it: its handling of lone surrogates and
	// invalid UTF-8 is the one gojq's users know.
	var s string
	if err := json.Unmarshal(d.b[start:d.i], &s); err != nil {
		return "", errSyntax
	}
	return s, nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number reads a number by JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *jsonDecoder) number() error {
	start := d.i
	b := d.b
	if d.i < len(b) && b[d.i] == '-' {
		d.i++
	}
	digits := func() bool {
		s := d.i
		for d.i < len(b) && '0' <= b[d.i] && b[d.i] <= '9' {
			d.i++
		}
		return d.i > s
	}
	switch {
	case d.i < len(b) && b[d.i] == '0':
		d.i++
	case !digits():
		return errSyntax
	}
	if d.i < len(b) && b[d.i] == '.' {
		d.i++
		if !digits() {
			return errSyntax
		}
	}
	if d.i < len(b) && (b[d.i] == 'e' || b[d.i] == 'E') {
		d.i++
		if d.i < len(b) && (b[d.i] == '+' || b[d.i] == '-') {
			d.i++
		}
		if !digits() {
			return errSyntax
		}
	}
	d.cost += costBoxed + allocCost(d.i-start)
	if d.build {
		d.v = json.Number(string(b[start:d.i]))
	}
	return nil
}

// stdDecodeError is what encoding/json says of a body decodeCost refused.
// It decodes into a json.RawMessage, which builds no values.
func stdDecodeError(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	if dec.More() {
		return errMoreValues
	}
	return nil
}
