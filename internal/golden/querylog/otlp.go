package querylog

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// The span attributes readOTLP reads (OpenInference semantic conventions).
const (
	attrSpanKind  = "openinference.span.kind"
	attrInput     = "input.value"
	attrInputMIME = "input.mime_type"
	// A retrieved document's attributes are docPrefix N "." docField, with
	// N its index from 0.
	docPrefix = "retrieval.documents."
	kindRetr  = "RETRIEVER"
)

// inputKeys are the members of a JSON input.value whose string is the
// query, in the order they are looked for.
var inputKeys = []string{"query", "query_str", "input", "question"}

// readOTLP reads an OTLP JSON trace export: one ExportTraceServiceRequest
// object, or several one after another (one per line, as the
// OpenTelemetry Collector's file exporter writes them). Every span of
// resourceSpans[].scopeSpans[].spans[] whose openinference.span.kind is
// RETRIEVER (in any letter case) is one record of count 1, its query the
// span's input.value. The older key instrumentationLibrarySpans is read as
// scopeSpans. A JSON object without resourceSpans, such as a metrics
// export in the same file, is skipped. The span's documents are read from
// retrieval.documents.N.document.{id,content,score,metadata}. docs/golden-sets.md
// lists the rules.
func readOTLP(data []byte, p *problems) []Record {
	data = bytes.TrimPrefix(data, bom)
	o := &otlpReader{p: p, data: data}
	if i := invalidAt(data); i < len(data) {
		p.add(o.line(i), "", "not valid UTF-8")
		return nil
	}
	o.dec = jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true))
	for {
		k := o.dec.PeekKind()
		if k == 0 {
			if _, err := o.dec.ReadToken(); !errors.Is(err, io.EOF) {
				o.syntax(err)
			}
			break
		}
		off := o.offset()
		if k != '{' {
			v, err := o.dec.ReadValue()
			if err != nil {
				o.syntax(err)
				break
			}
			p.add(o.line(off), "", "expected an OTLP JSON object (an export of resourceSpans), got "+describe(v))
			continue
		}
		if !o.object(func(key string, off int) bool {
			if key != "resourceSpans" {
				return o.skip()
			}
			return o.array("resourceSpans", off, func(path string, off int) bool {
				return o.object(func(key string, off int) bool {
					if key != "scopeSpans" && key != "instrumentationLibrarySpans" {
						return o.skip()
					}
					return o.array(path+"."+key, off, func(path string, off int) bool {
						return o.object(func(key string, off int) bool {
							if key != "spans" {
								return o.skip()
							}
							return o.array(path+".spans", off, o.span)
						}, path, off)
					})
				}, path, off)
			})
		}, "", off) {
			break
		}
	}
	return o.recs
}

// otlpReader walks an OTLP JSON export with a jsontext.Decoder, which
// gives the offset of every value, so that each problem has its line.
type otlpReader struct {
	p        *problems
	data     []byte
	dec      *jsontext.Decoder
	recs     []Record
	newlines []int
	indexed  bool
}

func (o *otlpReader) line(off int) int {
	if !o.indexed {
		o.indexed = true
		for i, c := range o.data {
			if c == '\n' {
				o.newlines = append(o.newlines, i)
			}
		}
	}
	return sort.SearchInts(o.newlines, off) + 1
}

// offset is the offset of the next value: after the white space, comma or
// colon that end the previous one.
func (o *otlpReader) offset() int {
	i := int(o.dec.InputOffset())
	for i < len(o.data) {
		switch o.data[i] {
		case ' ', '\t', '\n', '\r', ',', ':':
			i++
			continue
		}
		break
	}
	return i
}

// syntax adds the syntax error that stops the walk.
func (o *otlpReader) syntax(err error) {
	off := len(o.data)
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		off = min(int(se.ByteOffset), len(o.data))
		err = se.Err
	}
	msg := strings.TrimPrefix(err.Error(), "jsontext: ")
	if errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of input"
	}
	o.p.add(o.line(off), "", "invalid JSON: "+msg)
}

// skip skips the next value. Like the other walkers it reports false when
// the walk must stop: on a syntax error, or when the problems are full.
func (o *otlpReader) skip() bool {
	if err := o.dec.SkipValue(); err != nil {
		o.syntax(err)
		return false
	}
	return true
}

// object reads the object that comes next, calling member with each key
// and the offset of its value, which member must read. A value that is no
// object is a problem of path, skipped.
func (o *otlpReader) object(member func(key string, off int) bool, path string, off int) bool {
	if o.dec.PeekKind() != '{' {
		return o.mistyped(path, off, "an object")
	}
	if _, err := o.dec.ReadToken(); err != nil {
		o.syntax(err)
		return false
	}
	for o.dec.PeekKind() == '"' {
		t, err := o.dec.ReadToken()
		if err != nil {
			o.syntax(err)
			return false
		}
		if !member(t.String(), o.offset()) {
			return false
		}
	}
	if _, err := o.dec.ReadToken(); err != nil {
		o.syntax(err)
		return false
	}
	return true
}

// array reads the array that comes next, calling elem with the path and
// offset of each element, which elem must read. null is an empty array.
func (o *otlpReader) array(path string, off int, elem func(path string, off int) bool) bool {
	switch o.dec.PeekKind() {
	case 'n':
		return o.skip()
	case '[':
	default:
		return o.mistyped(path, off, "an array")
	}
	if _, err := o.dec.ReadToken(); err != nil {
		o.syntax(err)
		return false
	}
	for i := 0; o.dec.PeekKind() != ']'; i++ {
		if o.dec.PeekKind() == 0 {
			_, err := o.dec.ReadToken()
			o.syntax(err)
			return false
		}
		if !elem(path+"["+strconv.Itoa(i)+"]", o.offset()) {
			return false
		}
	}
	if _, err := o.dec.ReadToken(); err != nil {
		o.syntax(err)
		return false
	}
	return true
}

// mistyped adds that the value at path is not what wanted, and skips it.
func (o *otlpReader) mistyped(path string, off int, want string) bool {
	v, err := o.dec.ReadValue()
	if err != nil {
		o.syntax(err)
		return false
	}
	o.p.add(o.line(off), path, "expected "+want+", got "+describe(v))
	return true
}

// span reads one span, adding its record when it is a retriever span.
func (o *otlpReader) span(path string, off int) bool {
	raw, err := o.dec.ReadValue()
	if err != nil {
		o.syntax(err)
		return false
	}
	line := o.line(off)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var span map[string]any
	if err := dec.Decode(&span); err != nil || span == nil {
		o.p.add(line, path, "expected a span object, got "+describe(raw))
		return true
	}
	attrs, problem := spanAttributes(span)
	if problem != "" {
		o.p.add(line, path, problem)
		return true
	}
	if kind, _ := attrs[attrSpanKind].str(); !strings.EqualFold(strings.TrimSpace(kind), kindRetr) {
		return true
	}
	bad := func(where, msg string) {
		o.p.add(line, path+": "+where, msg)
	}
	rec := Record{Count: 1, Line: line, Span: &Span{}}
	ok := true
	q, msg := spanQuery(attrs)
	if msg != "" {
		bad("attribute "+strconv.Quote(attrInput), msg)
		ok = false
	}
	rec.Query = q
	s := rec.Span
	s.TraceID, _ = span["traceId"].(string)
	s.SpanID, _ = span["spanId"].(string)
	for key, dst := range map[string]*uint64{"startTimeUnixNano": &s.Start, "endTimeUnixNano": &s.End} {
		if v, has := span[key]; has && v != nil {
			n, isInt := unixNano(v)
			if !isInt {
				bad("field "+strconv.Quote(key), "expected a count of nanoseconds, got "+describeAny(v))
				ok = false
			}
			*dst = n
		}
	}
	docs, problems := spanDocuments(attrs)
	for _, pr := range problems {
		bad(pr[0], pr[1])
		ok = false
	}
	s.Documents = docs
	if ok {
		o.recs = append(o.recs, rec)
	}
	return true
}

// anyValue is an OTLP AnyValue: {"stringValue": …}, {"intValue": …}, ….
type anyValue map[string]any

// str is the value when it is a stringValue.
func (v anyValue) str() (string, bool) {
	s, ok := v["stringValue"].(string)
	return s, ok
}

// spanAttributes maps the key of each of the span's attributes to its
// value, the last one winning. problem says what is wrong with them.
func spanAttributes(span map[string]any) (map[string]anyValue, string) {
	out := map[string]anyValue{}
	raw, has := span["attributes"]
	if !has || raw == nil {
		return out, ""
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, "field \"attributes\": expected an array, got " + describeAny(raw)
	}
	for i, e := range list {
		kv, ok := e.(map[string]any)
		key, isStr := kv["key"].(string)
		if !ok || !isStr {
			return nil, "field \"attributes\": expected {\"key\": …, \"value\": …} at index " + strconv.Itoa(i) + ", got " + describeAny(e)
		}
		v, _ := kv["value"].(map[string]any)
		out[key] = v
	}
	return out, ""
}

// spanQuery is the query of a retriever span: input.value, or with
// input.mime_type application/json the JSON string it holds, or the first
// string member of inputKeys of the JSON object it holds. msg says why
// there is none.
func spanQuery(attrs map[string]anyValue) (q, msg string) {
	v, has := attrs[attrInput]
	if !has {
		return "", "missing: a RETRIEVER span needs its query in input.value"
	}
	s, ok := v.str()
	if !ok {
		return "", "expected a stringValue, got " + describeAny(map[string]any(v))
	}
	if mime, _ := attrs[attrInputMIME].str(); strings.EqualFold(strings.TrimSpace(mime), "application/json") {
		var j any
		if err := json.Unmarshal([]byte(s), &j); err != nil {
			return "", "input.mime_type is application/json but the value is not JSON: " + quote(s)
		}
		switch j := j.(type) {
		case string:
			s = j
		case map[string]any:
			found := false
			for _, k := range inputKeys {
				if js, isStr := j[k].(string); isStr {
					s, found = js, true
					break
				}
			}
			if !found {
				return "", "a JSON object without a string member " + strings.Join(inputKeys, ", ") + ": " + quote(s)
			}
		default:
			return "", "a JSON value that is neither a string nor an object: " + quote(s)
		}
	}
	if strings.TrimSpace(s) == "" {
		return "", "must not be " + emptyWord(s)
	}
	return strings.TrimSpace(s), ""
}

// spanDocuments reads the retrieved documents of a span from its
// retrieval.documents.N.document.{id,content,score,metadata} attributes,
// in the order of N. Other attributes under retrieval.documents. are
// ignored. It returns the problems found as (where, message) pairs.
func spanDocuments(attrs map[string]anyValue) ([]Document, [][2]string) {
	byIndex := map[int]*Document{}
	var problems [][2]string
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		if strings.HasPrefix(k, docPrefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, key := range keys {
		rest := key[len(docPrefix):]
		dot := strings.IndexByte(rest, '.')
		if dot < 0 || !strings.HasPrefix(rest[dot:], ".document.") {
			continue
		}
		n, err := strconv.Atoi(rest[:dot])
		if err != nil || n < 0 || rest[:dot] != strconv.Itoa(n) {
			continue
		}
		fieldName := rest[dot+len(".document."):]
		v := attrs[key]
		d := byIndex[n]
		if d == nil {
			d = &Document{}
		}
		where := "attribute " + strconv.Quote(key)
		switch fieldName {
		case "id":
			if s, ok := v.str(); ok {
				d.ID = s
			} else if i, ok := intValue(v); ok {
				d.ID = i
			} else {
				problems = append(problems, [2]string{where, "expected a stringValue or intValue, got " + describeAny(map[string]any(v))})
			}
		case "content":
			if s, ok := v.str(); ok {
				d.Content, d.HasContent = s, true
			} else {
				problems = append(problems, [2]string{where, "expected a stringValue, got " + describeAny(map[string]any(v))})
			}
		case "score":
			f, msg := doubleValue(v)
			if msg != "" {
				problems = append(problems, [2]string{where, msg})
			} else {
				d.Score = &f
			}
		case "metadata":
			if msg := d.metadata(v); msg != "" {
				problems = append(problems, [2]string{where, msg})
			}
		default:
			continue
		}
		byIndex[n] = d
	}
	if len(byIndex) == 0 {
		return nil, problems
	}
	idx := make([]int, 0, len(byIndex))
	for n := range byIndex {
		idx = append(idx, n)
	}
	sort.Ints(idx)
	docs := make([]Document, len(idx))
	for i, n := range idx {
		docs[i] = *byIndex[n]
	}
	return docs, problems
}

// metadata reads the source and title of a document's metadata: a JSON
// object in a stringValue, as OpenInference writes it, or a kvlistValue.
func (d *Document) metadata(v anyValue) string {
	var m map[string]any
	if s, ok := v.str(); ok {
		if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
			return "expected a JSON object in the stringValue, got " + quote(s)
		}
	} else if kv, ok := v["kvlistValue"].(map[string]any); ok {
		m = map[string]any{}
		list, _ := kv["values"].([]any)
		for _, e := range list {
			if e, ok := e.(map[string]any); ok {
				if k, ok := e["key"].(string); ok {
					ev, _ := e["value"].(map[string]any)
					if s, ok := anyValue(ev).str(); ok {
						m[k] = s
					}
				}
			}
		}
	} else {
		return "expected a stringValue or kvlistValue, got " + describeAny(map[string]any(v))
	}
	d.Source, _ = m["source"].(string)
	d.Title, _ = m["title"].(string)
	return ""
}

// intValue is an intValue, written as a JSON number or, as protojson
// writes 64-bit integers, a string of digits.
func intValue(v anyValue) (string, bool) {
	switch x := v["intValue"].(type) {
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return string(x), true
		}
	case string:
		if _, err := strconv.ParseInt(x, 10, 64); err == nil {
			return x, true
		}
	}
	return "", false
}

// doubleValue is a doubleValue or intValue as a finite number. msg says
// what is wrong, "" when nothing.
func doubleValue(v anyValue) (float64, string) {
	raw, has := v["doubleValue"]
	if !has {
		raw = v["intValue"]
	}
	var text string
	switch x := raw.(type) {
	case json.Number:
		text = string(x)
	case string:
		text = x
	default:
		return 0, "expected a doubleValue or intValue, got " + describeAny(map[string]any(v))
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, "expected a finite number, got " + quote(text)
	}
	return f, ""
}

// unixNano reads a span time: a JSON number or string of decimal digits.
func unixNano(v any) (uint64, bool) {
	var text string
	switch x := v.(type) {
	case json.Number:
		text = string(x)
	case string:
		text = x
	default:
		return 0, false
	}
	n, err := strconv.ParseUint(text, 10, 64)
	return n, err == nil
}

// describeAny shows a decoded JSON value in a message: its compact JSON,
// shortened to 60 characters.
func describeAny(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "a value"
	}
	return diag.Clip(string(b), 60, diag.Chars)
}
