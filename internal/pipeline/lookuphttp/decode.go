package lookuphttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// MaxArrayLen bounds every array of a lookup result but evidenceBlocks,
// such as retrievalTrace.attempts or rerankTrace.inputOrder, and every
// array of the pipeline /healthz describes. A longer one is a protocol
// error: with evidenceBlocks cut to the blocks kept, it is what keeps the
// memory a result takes bounded whatever its shape.
const MaxArrayLen = 10_000

// MaxRank is the largest rank a block may have, the largest the judge reads
// (docs/fixtures.md).
const MaxRank = math.MaxInt32

// A notJSONError is an answer that is not one JSON value.
type notJSONError struct{ err error }

// Error says what is wrong and at which byte. It leaves out the JSON
// pointer a syntax error carries, whose names are the server's and which
// the decoder cuts to 100 characters, before any secret is replaced.
func (e *notJSONError) Error() string {
	var se *jsontext.SyntacticError
	if errors.As(e.err, &se) && se.Err != nil {
		return fmt.Sprintf("%v (byte %d)", se.Err, se.ByteOffset)
	}
	return strings.TrimPrefix(e.err.Error(), "jsontext: ")
}

// errNoResult is an answer without a lookupResult, or with a null one.
var errNoResult = errors.New("response has no lookupResult")

// errNotObject is an answer that is JSON but not an object.
var errNotObject = errors.New("response is not a JSON object")

func newDecoder(r io.Reader) *jsontext.Decoder {
	// A repeated key is taken as encoding/json takes it: the last one wins.
	return jsontext.NewDecoder(r, jsontext.AllowDuplicateNames(true))
}

// readResponse reads a /v1/lookup answer, {"lookupResult": {…}}, from r and
// decodes its lookupResult (decodeStream). It reads the answer as a stream:
// of the evidence blocks it keeps the first maxBlocks, and checks of the
// others only that each is a JSON object. Members other than lookupResult
// are skipped. The errors are a *notJSONError for text that is not one
// JSON value, errNotObject, errNoResult and the error of a lookupResult
// that is not the protocol's, which names the field.
func readResponse(r io.Reader, maxBlocks int, quote func([]byte) string) (*contract.LookupResult, error) {
	dec := newDecoder(r)
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, &notJSONError{err}
	}
	if tok.Kind() != '{' {
		for err == nil && dec.StackDepth() > 0 {
			_, err = dec.ReadToken() // the rest of the array
		}
		if err == nil {
			err = atEOF(dec)
		}
		if err != nil {
			return nil, &notJSONError{err}
		}
		return nil, errNotObject
	}
	var lr *contract.LookupResult
	var lrErr error
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, &notJSONError{err}
		}
		if tok.String() != "lookupResult" {
			err = dec.SkipValue()
		} else {
			// The last lookupResult wins.
			lr, lrErr, err = decodeStream(dec, maxBlocks, quote)
		}
		if err != nil {
			return nil, &notJSONError{err}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, &notJSONError{err}
	}
	if err := atEOF(dec); err != nil {
		return nil, &notJSONError{err}
	}
	if lrErr != nil {
		return nil, lrErr
	}
	if lr == nil {
		return nil, errNoResult
	}
	return lr, nil
}

// atEOF checks that dec has nothing left but white space.
func atEOF(dec *jsontext.Decoder) error {
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the JSON value")
		}
		return err
	}
	return nil
}

// resultKeys are the members of a lookupResult that are read: its fields
// and the objects holding the others (contract.LookupResult.FieldGroups).
var resultKeys = func() []string {
	var keys []string
	for _, g := range new(contract.LookupResult).FieldGroups() {
		if g.Key != "" {
			keys = append(keys, g.Key)
			continue
		}
		for _, f := range g.Fields {
			keys = append(keys, f.Key)
		}
	}
	return keys
}()

// rawResult is a lookupResult as read from the stream: its members but
// evidenceBlocks as JSON text, and the blocks kept.
type rawResult struct {
	top map[string]json.RawMessage
	// blocks says whether evidenceBlocks is there and an array, kept its
	// first elements, total counts them all.
	blocks bool
	kept   []json.RawMessage
	total  int
	// notArray is evidenceBlocks when it is not an array nor null.
	notArray json.RawMessage
	// notObject is the error of the first element past the kept ones that
	// is not an object.
	notObject error
}

// decodeStream reads the lookupResult value at dec's position and decodes
// it (decodeRaw), keeping at most maxBlocks evidence blocks. A null is no
// result. It reads the whole value whatever it holds, so that the rest of
// the answer is read on. synErr is an error of the text, which stops the
// reading. err is the result's, which does not.
func decodeStream(dec *jsontext.Decoder, maxBlocks int, quote func([]byte) string) (lr *contract.LookupResult, err, synErr error) {
	switch dec.PeekKind() {
	case 'n':
		_, synErr = dec.ReadToken()
		return nil, nil, synErr
	case '{':
	default:
		v, synErr := dec.ReadValue()
		if synErr != nil {
			return nil, nil, synErr
		}
		return nil, fmt.Errorf("lookupResult is not an object: %s", quote(v)), nil
	}
	if _, synErr := dec.ReadToken(); synErr != nil {
		return nil, nil, synErr
	}
	raw := &rawResult{top: map[string]json.RawMessage{}}
	for dec.PeekKind() != '}' {
		tok, synErr := dec.ReadToken()
		if synErr != nil {
			return nil, nil, synErr
		}
		switch name := tok.String(); {
		case name == "evidenceBlocks":
			synErr = raw.readBlocks(dec, maxBlocks, quote)
		case slices.Contains(resultKeys, name):
			var v jsontext.Value
			v, synErr = dec.ReadValue()
			raw.top[name] = bytes.Clone(v)
		default:
			synErr = dec.SkipValue() // unknown: dropped unread
		}
		if synErr != nil {
			return nil, nil, synErr
		}
	}
	if _, synErr := dec.ReadToken(); synErr != nil {
		return nil, nil, synErr
	}
	lr, err = decodeRaw(raw, quote)
	return lr, err, nil
}

// readBlocks reads the evidenceBlocks value at dec's position into raw,
// replacing what an earlier evidenceBlocks left: the last one wins.
func (raw *rawResult) readBlocks(dec *jsontext.Decoder, maxBlocks int, quote func([]byte) string) error {
	raw.blocks, raw.kept, raw.total, raw.notArray, raw.notObject = false, nil, 0, nil, nil
	switch dec.PeekKind() {
	case 'n':
		_, err := dec.ReadToken()
		return err // null is no blocks
	case '[':
	default:
		v, err := dec.ReadValue()
		raw.notArray = bytes.Clone(v)
		return err
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	raw.blocks = true
	for ; dec.PeekKind() != ']'; raw.total++ {
		switch {
		case raw.total < maxBlocks:
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			raw.kept = append(raw.kept, bytes.Clone(v))
		case dec.PeekKind() == '{':
			if err := dec.SkipValue(); err != nil {
				return err
			}
		default:
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			if raw.notObject == nil {
				raw.notObject = fmt.Errorf("lookupResult.evidenceBlocks[%d] is not an object: %s", raw.total, quote(v))
			}
		}
	}
	_, err := dec.ReadToken()
	return err
}

// decodeRaw decodes a lookupResult read by decodeStream, as DecodeResult
// says. It reads the fields contract.LookupResult.FieldGroups lists, into
// the addresses it gives, and checks the values the contract bounds
// (checkResult, checkBlock).
func decodeRaw(raw *rawResult, quote func([]byte) string) (*contract.LookupResult, error) {
	top := &jsonMembers{path: "lookupResult", quote: quote, m: raw.top}
	lr := &contract.LookupResult{Partial: true}
	for _, g := range lr.FieldGroups() {
		m := top
		if g.Key != "" {
			var err error
			if m, err = top.object(g.Key); err != nil {
				return nil, err
			} else if m == nil {
				continue
			}
		}
		for _, f := range g.Fields {
			var ok bool
			switch f.Bit {
			case contract.HasEvidenceBlocks:
				ok = raw.blocks
				if raw.notArray != nil {
					m.m[f.Key] = raw.notArray
					m.get(f.Key, new([]json.RawMessage)) // the error that names the type
				}
			case contract.HasFallbackReason:
				// A null fallbackReason is a value: no retry was attempted.
				ok = m.has(f.Key)
				m.get(f.Key, f.Value)
			default:
				ok = m.get(f.Key, f.Value)
			}
			if ok {
				lr.Has |= f.Bit
			}
		}
		if m.err != nil {
			return nil, m.err
		}
		if err := checkResult(lr, g.Key); err != nil {
			return nil, err
		}
		if g.Key == "" {
			if err := decodeBlocks(lr, raw, quote); err != nil {
				return nil, err
			}
		}
	}
	return lr, nil
}

// decodeBlocks checks that lr has found and evidenceBlocks, and decodes the
// blocks kept.
func decodeBlocks(lr *contract.LookupResult, raw *rawResult, quote func([]byte) string) error {
	for _, need := range []contract.Presence{contract.HasFound, contract.HasEvidenceBlocks} {
		if lr.Has&need == 0 {
			return fmt.Errorf("lookupResult has no %s", strings.TrimPrefix(need.FieldPath(), "lookupResult."))
		}
	}
	lr.EvidenceBlocks = make([]contract.EvidenceBlock, len(raw.kept))
	for i, rb := range raw.kept {
		b := &lr.EvidenceBlocks[i]
		path := fmt.Sprintf("lookupResult.evidenceBlocks[%d]", i)
		m, err := members(rb, path, quote)
		if err != nil {
			return err
		}
		for _, f := range b.Fields() {
			if m.get(f.Key, f.Value) {
				b.Has |= f.Bit
				if f.Flag != nil {
					*f.Flag = true
				}
			}
		}
		if m.err != nil {
			return m.err
		}
		if err := checkBlock(b, path); err != nil {
			return err
		}
	}
	if raw.notObject != nil {
		return raw.notObject
	}
	lr.DroppedBlocks = raw.total - len(raw.kept)
	return nil
}

// The values the contract allows (docs/fixtures.md).
var (
	evidenceStatuses = []string{contract.EvidenceSufficient, contract.EvidenceWeak, contract.EvidenceNone}
	levels           = []string{contract.LevelHigh, contract.LevelMedium, contract.LevelLow}
)

// checkResult checks the values of group (FieldGroup.Key) of lr that the
// contract bounds: evidenceStatus, and the bestQuality of each attempt. A
// value is quoted whole: the Client replaces the secrets in a message
// before it cuts it.
func checkResult(lr *contract.LookupResult, group string) error {
	switch group {
	case "":
		if lr.Has&contract.HasEvidenceStatus != 0 && !slices.Contains(evidenceStatuses, lr.EvidenceStatus) {
			return fmt.Errorf("lookupResult.evidenceStatus: must be %s, got %s", orList(evidenceStatuses), strconv.Quote(lr.EvidenceStatus))
		}
	case "retrievalTrace":
		for i := range lr.RetrievalTrace.Attempts {
			a := &lr.RetrievalTrace.Attempts[i]
			if err := unitScore(&a.BestQuality, fmt.Sprintf("lookupResult.retrievalTrace.attempts[%d].bestQuality", i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkBlock checks the values of block b, at path, that the contract
// bounds: rank, qualityScore and relevanceLevel.
func checkBlock(b *contract.EvidenceBlock, path string) error {
	if b.HasRank && (b.Rank < 1 || b.Rank > MaxRank) {
		return fmt.Errorf("%s.rank: must be from 1 to %d, got %d", path, MaxRank, b.Rank)
	}
	if b.HasQuality {
		if err := unitScore(&b.QualityScore, path+".qualityScore"); err != nil {
			return err
		}
	}
	if b.Has&contract.BlockHasRelevanceLevel != 0 && !slices.Contains(levels, b.RelevanceLevel) {
		return fmt.Errorf("%s.relevanceLevel: must be %s, got %s", path, orList(levels), strconv.Quote(b.RelevanceLevel))
	}
	return nil
}

// unitScore checks that the score at path is from 0 to 1 as a fixture
// writes it, rounded to 6 decimals. A score that only its rounding puts
// there, such as the 1.0000001 a cosine of float32 vectors can give, is
// set to the bound, which it is written as anyway.
func unitScore(v *contract.Float6, path string) error {
	r := contract.Round6(float64(*v))
	if !(r >= 0 && r <= 1) {
		return fmt.Errorf("%s: must be from 0 to 1, got %s", path, strconv.FormatFloat(float64(*v), 'g', -1, 64))
	}
	*v = contract.Float6(min(max(float64(*v), 0), 1))
	return nil
}

// orList writes "a, b or c".
func orList(words []string) string {
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// jsonMembers are the members of a JSON object at path, decoded one by
// one. err is the first that failed.
type jsonMembers struct {
	path  string
	quote func([]byte) string // quotes a value in a message
	m     map[string]json.RawMessage
	err   error
}

// members reads the object raw at path.
func members(raw []byte, path string, quote func([]byte) string) (*jsonMembers, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%s is not an object: %s", path, quote(raw))
	}
	return &jsonMembers{path: path, quote: quote, m: m}, nil
}

// at is the path of key.
func (j *jsonMembers) at(key string) string {
	if j.path == "" {
		return key
	}
	return j.path + "." + key
}

// has reports whether key is there, null or not.
func (j *jsonMembers) has(key string) bool {
	_, ok := j.m[key]
	return ok
}

// get decodes key into dst and reports whether it was there and not null.
// An array in it longer than MaxArrayLen is an error.
func (j *jsonMembers) get(key string, dst any) bool {
	raw, ok := j.m[key]
	if !ok || string(raw) == "null" {
		return false
	}
	if ptr, n := longArray(raw); n > 0 {
		j.fail(key, fmt.Sprintf("%smore than %d elements", ptr, MaxArrayLen))
		return false
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		msg := err.Error()
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			msg = "expected " + jsonType(te.Type.Kind().String()) + ", got " + te.Value
		}
		j.fail(key, strings.TrimPrefix(msg, "json: "))
		return false
	}
	return true
}

// longArray finds an array of more than MaxArrayLen elements in the JSON
// value raw. It returns where it is, as "at /a/0: " or "" for raw itself,
// and a length above 0 when there is one.
func longArray(raw []byte) (where string, n int) {
	if bytes.IndexByte(raw, '[') < 0 {
		return "", 0
	}
	dec := newDecoder(bytes.NewReader(raw))
	for {
		if _, err := dec.ReadToken(); err != nil {
			return "", 0 // the decoding that follows says what is wrong
		}
		// The innermost array counts its elements as they are read. An
		// element that is an array or an object counts once it closes.
		if k, n := dec.StackIndex(dec.StackDepth()); k == '[' && n > MaxArrayLen {
			p := dec.StackPointer().Parent()
			if p == "" {
				return "", int(n)
			}
			return "at " + string(p) + ": ", int(n)
		}
	}
}

// object returns the members of the object at key, nil when it is missing
// or null.
func (j *jsonMembers) object(key string) (*jsonMembers, error) {
	raw, ok := j.m[key]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	return members(raw, j.at(key), j.quote)
}

// jsonType names a Go kind as the JSON type that decodes into it.
func jsonType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	}
	return "a number"
}
