package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/diag"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

// Limits on seed documents. Lengths are in bytes of UTF-8. They are the one
// set of limits of every store: each fits the catalog's columns (SQLite,
// MySQL) and the Milvus collection's fields (a test in package config
// checks it), so a document that passes validation is written the same way
// on the embedded store and the server stack, and one that does not is a
// problem before anything is written.
const (
	MaxFileSize    = 16 << 20         // a larger file is a problem, not read further
	MaxSourceLen   = 128              // source, which is also a file name under the data dir
	MaxDocIDLen    = 256              // doc_id, given or default
	MaxKBScopeLen  = kb.MaxKBScopeLen // kb_scope
	MaxCategoryLen = 256              // category
	MaxTitleLen    = 1024             // title, given or the first H1
	MaxValueLen    = 1024             // the document's breadcrumb, each keyword and alias
	// MaxBreadcrumbLen bounds a chunk's breadcrumb: the document's
	// breadcrumb followed by the heading path of its section.
	MaxBreadcrumbLen = 4096
)

// Frontmatter keys.
const (
	keySource     = "source"
	keyTitle      = "title"
	keyBreadcrumb = "breadcrumb"
	keyCategory   = "category"
	keyKBScope    = "kb_scope"
	keyKeywords   = "keywords"
	keyAliases    = "aliases"
	keyDocID      = "doc_id"
)

// knownKeys are the frontmatter keys in the order docs/corpus.md lists them.
var knownKeys = []string{keySource, keyTitle, keyBreadcrumb, keyCategory, keyKBScope, keyKeywords, keyAliases, keyDocID}

var requiredKeys = []string{keySource, keyBreadcrumb, keyCategory, keyKBScope}

var (
	sourcePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	docIDPattern  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/#-]*$`)
)

// parsed is a document as far as it could be read, with the lines of its
// keys, so LoadDir can check uniqueness across files even in documents
// that have other problems.
type parsed struct {
	doc          kb.Document
	keyLines     map[string]int
	sourceOK     bool // doc.Source is present and valid
	docIDOK      bool // doc.DocID is present (or defaulted) and valid
	docIDDefault bool
	problems     diag.List
}

// Parse reads one seed document: the frontmatter, validated against the
// rules of docs/corpus.md and kbScope, and the body. It returns the
// document and nil, or nil and every problem found, sorted by line. path
// is used in problems and as Document.Path only. The file is not read.
func Parse(path string, data []byte, kbScope string) (*kb.Document, diag.List) {
	p := parse(path, data, kbScope)
	if len(p.problems) > 0 {
		sortProblems(p.problems)
		return nil, p.problems
	}
	doc := p.doc
	return &doc, nil
}

func parse(path string, data []byte, kbScope string) *parsed {
	sum := sha256.Sum256(data)
	p := &parsed{
		doc:      kb.Document{Path: path, ContentHash: hex.EncodeToString(sum[:])},
		keyLines: make(map[string]int),
	}
	add := func(line int, format string, args ...any) {
		p.problems = append(p.problems, &diag.Error{File: path, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	if len(data) > MaxFileSize {
		add(1, "file is larger than %d MiB", MaxFileSize>>20)
		return p
	}
	if !utf8.Valid(data) {
		add(invalidUTF8Line(data), "invalid UTF-8")
		return p
	}
	text := normalizeNewlines(strings.TrimPrefix(string(data), "\uFEFF"))

	// The frontmatter: from a "---" first line to the next "---" line.
	opening, rest, hasNL := strings.Cut(text, "\n")
	if !isDelimiter(opening) {
		add(1, `missing frontmatter (the file must start with a "---" line)`)
		return p
	}
	var fmLines []string
	closed := false
	for hasNL {
		var ln string
		ln, rest, hasNL = strings.Cut(rest, "\n")
		if isDelimiter(ln) {
			closed = true
			break
		}
		fmLines = append(fmLines, ln)
	}
	if !closed {
		add(1, `frontmatter is not closed (no "---" line after the first one)`)
		return p
	}
	if !hasNL {
		rest = ""
	}
	p.doc.Body = rest
	bodyLine := len(fmLines) + 3 // the file's line of the body's first line

	entries, badKeys, problems := parseFrontmatter(path, fmLines, 2)
	p.problems = append(p.problems, problems...)
	values := make(map[string]*fmEntry)
	for i := range entries {
		e := &entries[i]
		if !isKnownKey(e.key) {
			add(e.line, "unknown key %q (known keys: %s)", e.key, strings.Join(knownKeys, ", "))
			continue
		}
		if first, dup := p.keyLines[e.key]; dup {
			add(e.line, "duplicate key %q (first on line %d)", e.key, first)
			continue
		}
		p.keyLines[e.key] = e.line
		list := e.key == keyKeywords || e.key == keyAliases
		switch {
		case e.empty:
			add(e.line, "%s: empty value (remove the key to leave it out)", e.key)
		case list && !e.list:
			add(e.line, "%s: must be a list, such as [a, b]", e.key)
		case !list && e.list:
			add(e.line, "%s: must be a single value, not a list", e.key)
		default:
			values[e.key] = e
		}
	}
	for _, k := range requiredKeys {
		if _, ok := p.keyLines[k]; !ok && !badKeys[k] {
			add(1, "missing required key %q", k)
		}
	}

	// scalar returns the trimmed value of key if it is present and
	// valid text.
	scalar := func(key string, max int) (string, int, bool) {
		e := values[key]
		if e == nil {
			return "", 0, false
		}
		v := strings.TrimSpace(e.value)
		if msg := checkText(v, max); msg != "" {
			add(e.line, "%s: %s", key, msg)
			return "", e.line, false
		}
		return v, e.line, true
	}
	if v, line, ok := scalar(keySource, MaxSourceLen); ok {
		if sourcePattern.MatchString(v) {
			p.doc.Source, p.sourceOK = v, true
		} else {
			add(line, "source %q does not match [a-z0-9][a-z0-9._-]*", v)
		}
	}
	if v, _, ok := scalar(keyTitle, MaxTitleLen); ok {
		p.doc.Title = v
	}
	if v, line, ok := scalar(keyBreadcrumb, MaxValueLen); ok {
		if textnorm.NormalizeBreadcrumb(v) == "" {
			add(line, "breadcrumb %q has no segments", v)
		} else {
			p.doc.Breadcrumb = v
		}
	}
	if v, _, ok := scalar(keyCategory, MaxCategoryLen); ok {
		p.doc.Category = v
	}
	if v, line, ok := scalar(keyKBScope, MaxKBScopeLen); ok {
		if v == kbScope {
			p.doc.KBScope = v
		} else {
			se := &ScopeError{Declared: v, Loading: kbScope}
			p.problems = append(p.problems, &diag.Error{File: path, Line: line, Msg: se.Error(), Err: se})
		}
	}
	p.doc.Keywords = p.list(values[keyKeywords], add)
	p.doc.Aliases = p.list(values[keyAliases], add)
	if v, line, ok := scalar(keyDocID, MaxDocIDLen); ok {
		if docIDPattern.MatchString(v) {
			p.doc.DocID, p.docIDOK = v, true
		} else {
			add(line, "doc_id %q does not match [A-Za-z0-9][A-Za-z0-9._:/#-]*", v)
		}
	} else if line == 0 && !badKeys[keyDocID] && p.sourceOK && p.doc.KBScope != "" {
		p.doc.DocID = p.doc.KBScope + "/" + p.doc.Source
		p.docIDDefault = true
		p.docIDOK = docIDPattern.MatchString(p.doc.DocID) && len(p.doc.DocID) <= MaxDocIDLen
		if !p.docIDOK {
			add(p.keyLines[keyKBScope], "default doc_id %q (kb_scope/source) does not match [A-Za-z0-9][A-Za-z0-9._:/#-]* or is longer than %d bytes; set doc_id",
				p.doc.DocID, MaxDocIDLen)
		}
	}

	// The body.
	if strings.TrimSpace(p.doc.Body) == "" {
		add(1, "empty body (nothing but white space after the frontmatter)")
		return p
	}
	lines := scanLines(p.doc.Body)
	if !hasText(lines) {
		add(1, "body has only headings (no text to search)")
	}
	lineOf := func(l mdLine) int { return bodyLine + strings.Count(p.doc.Body[:l.start], "\n") }
	if p.doc.Title == "" {
		if h1, ok := firstH1(lines); ok {
			if len(h1.heading) > MaxTitleLen {
				add(lineOf(h1), "the first H1, the document's title, is %d bytes long (at most %d); shorten it or set title in the frontmatter",
					len(h1.heading), MaxTitleLen)
			}
			p.doc.Title = h1.heading
		} else {
			p.doc.Title = p.doc.Source
		}
	}
	if p.doc.Breadcrumb != "" {
		for sec := range sections(&p.doc, lines) {
			if len(sec.crumb) > MaxBreadcrumbLen {
				add(lineOf(sec.lines[0]), "the breadcrumb of this section (the document's breadcrumb and the headings above it) is %d bytes long (at most %d); shorten its headings",
					len(sec.crumb), MaxBreadcrumbLen)
				break
			}
		}
	}
	return p
}

// list validates a keywords or aliases list: items are trimmed, non-empty
// valid text, and distinct after normalisation (each would vote twice in
// the L0 index).
func (p *parsed) list(e *fmEntry, add func(int, string, ...any)) []string {
	if e == nil {
		return nil
	}
	out := make([]string, 0, len(e.items))
	seen := make(map[string]int)
	for _, it := range e.items {
		v := strings.TrimSpace(it.text)
		if v == "" {
			add(it.line, "%s: empty item", e.key)
			continue
		}
		if msg := checkText(v, MaxValueLen); msg != "" {
			add(it.line, "%s: item %q: %s", e.key, shorten(v), msg)
			continue
		}
		n := textnorm.Normalize(v)
		if first, dup := seen[n]; dup {
			add(it.line, "%s: duplicate item %q (first on line %d)", e.key, v, first)
			continue
		}
		seen[n] = it.line
		out = append(out, v)
	}
	return out
}

// checkText validates a trimmed value.
func checkText(v string, max int) string {
	switch {
	case v == "":
		return "empty value"
	case len(v) > max:
		return "longer than " + strconv.Itoa(max) + " bytes"
	case strings.IndexFunc(v, isControl) >= 0:
		return "contains a control character"
	}
	return ""
}

func isControl(r rune) bool { return unicode.IsControl(r) || r == 0x2028 || r == 0x2029 }

func isKnownKey(k string) bool {
	for _, kk := range knownKeys {
		if k == kk {
			return true
		}
	}
	return false
}

// isDelimiter reports whether ln is a frontmatter delimiter: "---",
// optionally followed by spaces or tabs.
func isDelimiter(ln string) bool { return strings.TrimRight(ln, " \t") == "---" }

// normalizeNewlines turns CRLF and lone CR line endings into LF.
func normalizeNewlines(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// invalidUTF8Line returns the line of the first invalid UTF-8 byte of
// data, counting CRLF, LF and CR as line endings.
func invalidUTF8Line(data []byte) int {
	i := 0
	for i < len(data) {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		i += n
	}
	return 1 + strings.Count(normalizeNewlines(string(data[:i])), "\n")
}

// LoadDir reads and validates every seed document in dir: the files whose
// name ends in ".md", in name order, not descending into subdirectories
// and skipping names that start with '.' (editor lock and backup files).
// Every document is validated, and source and doc_id checked for
// uniqueness across the directory, before LoadDir returns: on any problem
// it returns no documents and a diag.List of all of them, sorted by file,
// then line. A directory with no documents, an empty kbScope and an
// unreadable directory are other errors.
func LoadDir(dir, kbScope string) ([]kb.Document, error) {
	if kbScope == "" {
		return nil, errors.New("load seed documents: empty kb scope")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("load seed documents: %w", err)
	}
	var all []*parsed
	var problems diag.List
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".md") || strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		data, skip, err := readDoc(path)
		if skip {
			continue
		}
		if err != nil {
			problems = append(problems, &diag.Error{File: path, Line: 1, Msg: err.Error()})
			continue
		}
		all = append(all, parse(path, data, kbScope))
	}
	if len(all) == 0 && len(problems) == 0 {
		return nil, fmt.Errorf("load seed documents: no .md files in %s", dir)
	}
	checkUnique(all)
	for _, p := range all {
		problems = append(problems, p.problems...)
	}
	if len(problems) > 0 {
		sortProblems(problems)
		return nil, problems
	}
	docs := make([]kb.Document, len(all))
	for i, p := range all {
		docs[i] = p.doc
	}
	return docs, nil
}

// readDoc reads one file of a seed directory, at most MaxFileSize+1 bytes
// so parse reports a file that is too large. skip is set for directories.
func readDoc(path string) (data []byte, skip bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, errors.New("cannot read: " + pathErr(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, false, errors.New("cannot read: " + pathErr(err))
	}
	if info.IsDir() {
		return nil, true, nil
	}
	if !info.Mode().IsRegular() {
		return nil, false, errors.New("not a regular file")
	}
	data, err = io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, false, errors.New("cannot read: " + pathErr(err))
	}
	return data, false, nil
}

// pathErr returns the message of err without the path the problem already
// names.
func pathErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// checkUnique adds a problem to each document whose source or doc_id was
// already used by an earlier document (in name order). doc_ids that
// differ only in letter case count as equal: MySQL compares them so by
// default.
func checkUnique(all []*parsed) {
	type at struct {
		file string
		line int
		id   string
	}
	sources := make(map[string]at)
	docIDs := make(map[string]at)
	for _, p := range all {
		dupSource := false
		if p.sourceOK {
			line := p.keyLines[keySource]
			if first, dup := sources[p.doc.Source]; dup {
				dupSource = true
				p.problems = append(p.problems, &diag.Error{File: p.doc.Path, Line: line,
					Msg: fmt.Sprintf("duplicate source %q (also in %s:%d)", p.doc.Source, first.file, first.line)})
			} else {
				sources[p.doc.Source] = at{p.doc.Path, line, p.doc.Source}
			}
		}
		if !p.docIDOK {
			continue
		}
		line := p.keyLines[keyDocID]
		if p.docIDDefault {
			line = p.keyLines[keySource]
		}
		folded := strings.ToLower(p.doc.DocID)
		first, dup := docIDs[folded]
		switch {
		case !dup:
			docIDs[folded] = at{p.doc.Path, line, p.doc.DocID}
		case p.docIDDefault && dupSource:
			// Already reported as a duplicate source.
		case first.id == p.doc.DocID:
			p.problems = append(p.problems, &diag.Error{File: p.doc.Path, Line: line,
				Msg: fmt.Sprintf("duplicate doc_id %q (also in %s:%d)", p.doc.DocID, first.file, first.line)})
		default:
			p.problems = append(p.problems, &diag.Error{File: p.doc.Path, Line: line,
				Msg: fmt.Sprintf("doc_id %q differs from %q (in %s:%d) only in letter case", p.doc.DocID, first.id, first.file, first.line)})
		}
	}
}
