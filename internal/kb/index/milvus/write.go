package milvus

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/milvus-io/milvus/client/v2/column"
	"github.com/milvus-io/milvus/client/v2/milvusclient"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// primaryKey is the id of a chunk: the hex SHA-256 of its kbScope,
// length-prefixed, and its evidence key (unique only inside its kbScope).
// A hash, not the key itself: evidence keys hold heading text, quotes and
// backslashes included, which Milvus Lite's upsert mishandles in a
// primary key, and 64 bytes fit whatever their length.
func primaryKey(kbScope, evidenceKey string) string {
	sum := sha256.Sum256([]byte(strconv.Itoa(len(kbScope)) + ":" + kbScope + ":" + evidenceKey))
	return hex.EncodeToString(sum[:])
}

// Upsert writes chunks, replacing the chunks with the same evidence key in
// the same kbScope by Milvus upsert on the primary key. Every chunk is
// checked before anything is sent. Within one call the last of two chunks
// with the same key wins. Chunks are sent in batches of Config.BatchSize,
// each under the timeout. When a batch fails the earlier ones stay written.
// That is safe because the ingestion marks documents ready only after
// Upsert returns.
func (ix *Index) Upsert(ctx context.Context, chunks []kb.Chunk) error {
	if len(chunks) == 0 {
		return nil
	}
	dim, err := ix.currentDim(ctx)
	if err != nil {
		return err
	}
	pos := make(map[string]int, len(chunks))
	rows := make([]kb.Chunk, 0, len(chunks))
	for _, c := range chunks {
		if err := checkChunk(c, dim); err != nil {
			return fmt.Errorf("milvus: upsert into %s: %w", ix.cfg.Collection, err)
		}
		id := primaryKey(c.KBScope, c.EvidenceKey)
		if i, ok := pos[id]; ok {
			rows[i] = c
			continue
		}
		pos[id] = len(rows)
		rows = append(rows, c)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for start := 0; start < len(rows); start += ix.cfg.BatchSize {
		batch := rows[start:min(start+ix.cfg.BatchSize, len(rows))]
		err := ix.call(ctx, fmt.Sprintf("upsert %d chunks", len(batch)), func(ctx context.Context) error {
			_, err := ix.cli.Upsert(ctx, milvusclient.NewColumnBasedInsertOption(ix.cfg.Collection, columns(batch, dim)...))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// columns lays chunks out as the collection's columns (sparse is filled by
// the BM25 function on the server).
func columns(chunks []kb.Chunk, dim int) []column.Column {
	n := len(chunks)
	ids, keys, docs := make([]string, n), make([]string, n), make([]string, n)
	sources, scopes, cats := make([]string, n), make([]string, n), make([]string, n)
	crumbs, titles, texts := make([]string, n), make([]string, n), make([]string, n)
	idx := make([]int64, n)
	vecs := make([][]float32, n)
	for i, c := range chunks {
		ids[i] = primaryKey(c.KBScope, c.EvidenceKey)
		keys[i], docs[i], sources[i] = c.EvidenceKey, c.DocID, c.Source
		scopes[i], cats[i], crumbs[i], titles[i] = c.KBScope, c.Category, c.Breadcrumb, c.Title
		texts[i], idx[i], vecs[i] = c.Text, int64(c.ChunkIndex), c.Vector
	}
	return []column.Column{
		column.NewColumnVarChar(fieldID, ids),
		column.NewColumnVarChar(fieldEvidenceKey, keys),
		column.NewColumnVarChar(fieldDocID, docs),
		column.NewColumnVarChar(fieldSource, sources),
		column.NewColumnVarChar(fieldKBScope, scopes),
		column.NewColumnVarChar(fieldCategory, cats),
		column.NewColumnVarChar(fieldBreadcrumb, crumbs),
		column.NewColumnVarChar(fieldTitle, titles),
		column.NewColumnInt64(fieldChunkIndex, idx),
		column.NewColumnVarChar(fieldText, texts),
		column.NewColumnFloatVector(fieldDense, dim, vecs),
	}
}

// checkChunk rejects a chunk Milvus would reject or mangle: a missing key,
// scope or document id, a vector of another dimension or with a NaN or
// infinity, a string that is not valid UTF-8 (the BM25 analyzer of Milvus
// Lite crashes on it) or longer than its field.
func checkChunk(c kb.Chunk, dim int) error {
	if c.EvidenceKey == "" || c.KBScope == "" || c.DocID == "" {
		return fmt.Errorf("chunk %q of document %q in kbScope %q: evidence key, document id and kbScope are required", c.EvidenceKey, c.DocID, c.KBScope)
	}
	if len(c.Vector) != dim {
		return fmt.Errorf("chunk %s: vector has dimension %d, the collection %d", c.EvidenceKey, len(c.Vector), dim)
	}
	for _, x := range c.Vector {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("chunk %s: vector has a non-finite value", c.EvidenceKey)
		}
	}
	for _, f := range []struct{ name, v string }{
		{fieldID, primaryKey(c.KBScope, c.EvidenceKey)},
		{fieldEvidenceKey, c.EvidenceKey}, {fieldDocID, c.DocID}, {fieldSource, c.Source},
		{fieldKBScope, c.KBScope}, {fieldCategory, c.Category}, {fieldBreadcrumb, c.Breadcrumb},
		{fieldTitle, c.Title}, {fieldText, c.Text},
	} {
		if !utf8.ValidString(f.v) {
			return fmt.Errorf("chunk %q: %s is not valid UTF-8", c.EvidenceKey, f.name)
		}
		if len(f.v) > maxLen[f.name] {
			return fmt.Errorf("chunk %s: %s is %d bytes long, at most %d fit the collection", c.EvidenceKey, f.name, len(f.v), maxLen[f.name])
		}
	}
	return nil
}

// DeleteDocument removes every chunk of the document docID in kbScope.
// Deleting a document that has no chunks is not an error.
func (ix *Index) DeleteDocument(ctx context.Context, kbScope, docID string) error {
	expr, err := documentExpr(kbScope, docID)
	if err != nil {
		return fmt.Errorf("milvus: delete document %q: %w", docID, err)
	}
	if _, err := ix.currentDim(ctx); err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.call(ctx, "delete document "+strconv.Quote(docID), func(ctx context.Context) error {
		_, err := ix.cli.Delete(ctx, milvusclient.NewDeleteOption(ix.cfg.Collection).WithExpr(expr))
		return err
	})
}
