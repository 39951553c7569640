package sqlcatalog

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/diag"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

// checkKey checks a required exact key of at most max bytes.
func checkKey(what, v string, max int) error {
	if v == "" {
		return fmt.Errorf("%s is empty", what)
	}
	return checkString(what, v, max)
}

// checkString checks a string of at most max bytes, possibly empty.
func checkString(what, v string, max int) error {
	switch {
	case len(v) > max:
		return fmt.Errorf("%s is %d bytes long, more than the catalog's limit of %d", what, len(v), max)
	case !utf8.ValidString(v):
		return fmt.Errorf("%s %s is not valid UTF-8", what, quote(v))
	case strings.IndexByte(v, 0) >= 0:
		// SQLite's C string functions and many MySQL tools stop at NUL.
		return fmt.Errorf("%s %s contains a NUL byte", what, quote(v))
	}
	return nil
}

// checkDocument checks what BeginIndexing writes and returns the L0 terms
// of doc: keywords, aliases and title, empty ones skipped, exact
// duplicates (same kind and text) once.
func checkDocument(doc kb.Document, chunks []kb.Chunk) ([]term, error) {
	for _, f := range []struct {
		what string
		v    string
		max  int
		req  bool
	}{
		{"kb_scope", doc.KBScope, MaxKBScope, true},
		{"doc_id", doc.DocID, MaxDocID, true},
		{"source", doc.Source, MaxSource, true},
		{"title", doc.Title, MaxText, false},
		{"breadcrumb", doc.Breadcrumb, MaxText, false},
		{"category", doc.Category, MaxText, false},
	} {
		check := checkString
		if f.req {
			check = checkKey
		}
		if err := check(f.what, f.v, f.max); err != nil {
			return nil, err
		}
	}

	var terms []term
	seen := make(map[[2]string]bool)
	add := func(kind, what string, vs ...string) error {
		for _, v := range vs {
			if v == "" || seen[[2]string{kind, v}] {
				continue
			}
			seen[[2]string{kind, v}] = true
			if err := checkString(what, v, MaxText); err != nil {
				return err
			}
			norm := textnorm.Normalize(v)
			if err := checkString("normalised "+what, norm, MaxText); err != nil {
				return err
			}
			terms = append(terms, term{kb.L0Term{Term: v, Kind: kind, DocID: doc.DocID, Source: doc.Source, Category: doc.Category}, norm})
		}
		return nil
	}
	if err := add(kb.TermKeyword, "keyword", doc.Keywords...); err != nil {
		return nil, err
	}
	if err := add(kb.TermAlias, "alias", doc.Aliases...); err != nil {
		return nil, err
	}
	if err := add(kb.TermTitle, "title", doc.Title); err != nil {
		return nil, err
	}

	indexes := make(map[int]bool, len(chunks))
	keys := make(map[string]bool, len(chunks))
	for i, ch := range chunks {
		switch {
		case ch.KBScope != doc.KBScope:
			return nil, fmt.Errorf("chunk %d has kb_scope %s, the document %s", i, quote(ch.KBScope), quote(doc.KBScope))
		case ch.DocID != doc.DocID:
			return nil, fmt.Errorf("chunk %d has doc_id %s, the document %s", i, quote(ch.DocID), quote(doc.DocID))
		case ch.ChunkIndex < 0 || ch.ChunkIndex > math.MaxInt32:
			return nil, fmt.Errorf("chunk %d has chunk index %d, outside [0, %d]", i, ch.ChunkIndex, math.MaxInt32)
		case indexes[ch.ChunkIndex]:
			return nil, fmt.Errorf("chunk %d repeats chunk index %d", i, ch.ChunkIndex)
		case keys[ch.EvidenceKey]:
			return nil, fmt.Errorf("chunk %d repeats evidence key %s", i, quote(ch.EvidenceKey))
		}
		if err := kb.CheckEvidenceKey(doc.DocID, ch.EvidenceKey); err != nil {
			return nil, fmt.Errorf("chunk %d: %w", i, err)
		}
		indexes[ch.ChunkIndex] = true
		keys[ch.EvidenceKey] = true
		if err := checkString(fmt.Sprintf("chunk %d breadcrumb", i), ch.Breadcrumb, MaxText); err != nil {
			return nil, err
		}
	}
	return terms, nil
}

// quote quotes v for a message, shortened to about 60 bytes. The ellipsis
// of a cut goes after the closing quote.
func quote(v string) string {
	if head, cut := diag.Prefix(v, 60, diag.Bytes); cut {
		return fmt.Sprintf("%q", head) + diag.Ellipsis
	}
	return fmt.Sprintf("%q", v)
}
