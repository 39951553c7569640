package config

import (
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/catalog/sqlcatalog"
	"github.com/ragbaseline/ragbaseline/internal/kb/index/milvus"
)

// TestLimitsFitEveryStore checks that every value a valid seed document can
// produce fits every store: the catalog's columns and the Milvus
// collection's fields. SQLite and MySQL share sqlcatalog's limits. A limit
// that did not fit would pass validation and fail after the catalog write
// on one stack only, leaving the document indexing and the two stacks
// apart.
func TestLimitsFitEveryStore(t *testing.T) {
	// The longest evidence key: the longest doc_id, '#', the longest
	// section label, and an occurrence and a piece number no document of
	// MaxFileSize bytes can exceed. A longer heading path is cut and
	// hashed.
	maxEvidenceKey := len(kb.EvidenceKey(strings.Repeat("d", corpus.MaxDocIDLen), strings.Repeat("l", kb.MaxSectionLabelLen),
		corpus.MaxFileSize, corpus.MaxFileSize))
	if maxEvidenceKey > kb.MaxEvidenceKeyLen {
		t.Errorf("evidence key: up to %d bytes are made, stores check at most %d", maxEvidenceKey, kb.MaxEvidenceKeyLen)
	}
	// Milvus' primary key is the hex SHA-256 of the kbScope and the key.
	const maxID = 64
	for _, c := range []struct {
		what    string
		limit   int
		catalog int // 0: not stored in the catalog
		field   string
	}{
		{"source", corpus.MaxSourceLen, sqlcatalog.MaxSource, "source"},
		{"doc_id", corpus.MaxDocIDLen, sqlcatalog.MaxDocID, "doc_id"},
		{"evidence key", maxEvidenceKey, sqlcatalog.MaxEvidenceKey, "evidence_key"},
		{"evidence key a store accepts", kb.MaxEvidenceKeyLen, sqlcatalog.MaxEvidenceKey, "evidence_key"},
		{"milvus id", maxID, 0, "id"},
		{"kb_scope", corpus.MaxKBScopeLen, sqlcatalog.MaxKBScope, "kb_scope"},
		{"category", corpus.MaxCategoryLen, sqlcatalog.MaxText, "category"},
		{"title", corpus.MaxTitleLen, sqlcatalog.MaxText, "title"},
		{"document breadcrumb", corpus.MaxValueLen, sqlcatalog.MaxText, "breadcrumb"},
		{"chunk breadcrumb", corpus.MaxBreadcrumbLen, sqlcatalog.MaxText, "breadcrumb"},
		{"keyword or alias", corpus.MaxValueLen, sqlcatalog.MaxText, ""},
		{"chunk text (4 bytes a character)", 4 * corpus.MaxChunkChars, 0, "text"},
	} {
		if c.catalog > 0 && c.limit > c.catalog {
			t.Errorf("%s: up to %d bytes pass validation, the catalog holds %d", c.what, c.limit, c.catalog)
		}
		if c.field == "" {
			continue
		}
		if m := milvus.FieldMaxLen(c.field); m == 0 || c.limit > m {
			t.Errorf("%s: up to %d bytes pass validation, Milvus field %s holds %d", c.what, c.limit, c.field, m)
		}
	}
}
