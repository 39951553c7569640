package querylog

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// The formats Read reads. Auto is the format Detect picks.
const (
	Auto  = "auto"
	Text  = "text"
	JSONL = "jsonl"
	CSV   = "csv"
	OTLP  = "otlp"
)

// Formats are the values of rag-eval draft --format, Auto first.
var Formats = []string{Auto, Text, JSONL, CSV, OTLP}

// Record is one entry of a query log: a query as it was asked, how often,
// and what the log says of it.
type Record struct {
	// Query is the query as written in the log, its surrounding white
	// space removed. It is never "".
	Query string
	// Count is how often the query was asked, at least 1.
	Count int
	// Tags are the labels the log gives the query, trimmed, each non-empty.
	Tags []string
	// Scenario is the scenario the log gives the query, trimmed, "" when
	// none.
	Scenario string
	// Line is the 1-based line the record starts on.
	Line int
	// Span is the retriever span the query was read from, nil for the
	// other formats.
	Span *Span
}

// Span is what a retriever span of an OTLP trace export holds besides the
// query: where it is, when it ran and what it retrieved.
type Span struct {
	TraceID, SpanID string
	// Start and End are the span's times in Unix nanoseconds, 0 when the
	// span does not say.
	Start, End uint64
	// Documents are the retrieved documents in the order of their index
	// (retrieval.documents.N).
	Documents []Document
}

// Document is one retrieved document of a span. A field the span does
// not carry is "" or nil.
type Document struct {
	ID      string
	Content string
	// HasContent reports whether the span carries the content, which may
	// be "".
	HasContent bool
	Score      *float64
	// Source and Title are the members of the document's metadata of those
	// names, when it has them as strings.
	Source, Title string
}

// Log is a query log read by Read.
type Log struct {
	// Name is the file name the log was read under.
	Name string
	// Format is the format it was read as: Text, JSONL, CSV or OTLP.
	Format string
	// Records are the log's queries in file order.
	Records []Record
}

// MaxProblems is the most problems Read lists. When there are more, the
// last entry of the list says how many were left out.
const MaxProblems = 100

// Read reads the query log data, named name in messages, in format (Auto
// picks one with Detect). Every problem is returned at once, as a
// diag.List of FILE:LINE errors in line order: at most MaxProblems of them,
// and then one that counts the rest. A log without a single query is a
// problem too. Read never panics.
func Read(name string, data []byte, format string) (*Log, error) {
	if format == "" || format == Auto {
		format = Detect(name, data)
	}
	p := &problems{name: name}
	var recs []Record
	switch format {
	case Text:
		recs = readText(data, p)
	case JSONL:
		recs = readJSONL(data, p)
	case CSV:
		recs = readCSV(data, p)
	case OTLP:
		recs = readOTLP(data, p)
	default:
		return nil, fmt.Errorf("unknown query log format %q (known: %s)", format, strings.Join(Formats, ", "))
	}
	if len(recs) == 0 && len(p.list) == 0 {
		msg := "no query in the log"
		if format == OTLP {
			msg = "no retriever span with a query in the log (spans whose openinference.span.kind is RETRIEVER)"
		}
		p.add(0, "", msg)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	return &Log{Name: name, Format: format, Records: recs}, nil
}

// Detect picks the format of a log:
//
//   - a name ending in .csv is CSV, one ending in .txt is Text;
//   - otherwise a log whose first value is a JSON object with a
//     "resourceSpans" key is OTLP, and one that starts with "{" is JSONL;
//   - anything else is Text.
//
// A leading byte order mark and white space are skipped.
func Detect(name string, data []byte) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv":
		return CSV
	case ".txt":
		return Text
	}
	rest := bytes.TrimLeft(bytes.TrimPrefix(data, bom), " \t\r\n")
	if len(rest) == 0 || rest[0] != '{' {
		return Text
	}
	if hasTopKey(rest, "resourceSpans") {
		return OTLP
	}
	return JSONL
}

var bom = []byte("\uFEFF")

// hasTopKey reports whether the JSON object data starts with has key at
// its top level. It reads the object's keys only up to the key, and says
// false when the JSON breaks before it.
func hasTopKey(data []byte, key string) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if t, err := dec.ReadToken(); err != nil || t.Kind() != '{' {
		return false
	}
	for dec.PeekKind() == '"' {
		t, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if t.String() == key {
			return true
		}
		if err := dec.SkipValue(); err != nil {
			return false
		}
	}
	return false
}

// problems collects the problems of one log.
type problems struct {
	name string
	list diag.List
	more int // problems past MaxProblems
}

func (p *problems) add(line int, where, msg string) {
	if len(p.list) >= MaxProblems {
		p.more++
		return
	}
	p.list = append(p.list, &diag.Error{File: p.name, Line: line, Where: where, Msg: msg})
}

func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	l := p.list
	if p.more > 0 {
		l = append(l, &diag.Error{File: p.name, Msg: fmt.Sprintf("%d more problems not listed", p.more)})
	}
	return l
}

// field names a field of a record for diag.Error.Where.
func field(name string) string { return "field " + quote(name) }

// quote quotes s for a message, shortened to 40 characters when longer,
// with the ellipsis after the closing quote.
func quote(s string) string {
	head, cut := diag.Prefix(s, 40, diag.Chars)
	if cut {
		return strconv.Quote(head) + diag.Ellipsis
	}
	return strconv.Quote(head)
}
