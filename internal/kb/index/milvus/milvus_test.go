package milvus

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/milvus-io/milvus/client/v2/entity"
	"github.com/milvus-io/milvus/client/v2/milvusclient"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

// milvusAddr returns RAG_MILVUS_ADDR. Without it the test is skipped, or
// fails when RAG_REQUIRE_SERVICES=1.
func milvusAddr(t testing.TB) string { return kbtest.ServiceEnv(t, "RAG_MILVUS_ADDR") }

// testCollection returns a collection name unique to this test.
func testCollection(testing.TB) string { return kbtest.RandomName("t_") }

// openTest opens an Index on a new collection of its own (one writer per
// collection) and drops the collection when the test ends.
func openTest(t testing.TB, addr string) *Index {
	t.Helper()
	ix, err := Open(context.Background(), Config{Addr: addr, Collection: testCollection(t), Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ix2, err := Open(context.Background(), Config{Addr: addr, Collection: ix.Collection()})
		if err != nil {
			t.Errorf("cleanup: %v", err)
			return
		}
		defer ix2.Close()
		if err := ix2.Drop(context.Background()); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return ix
}

func TestIndexContract(t *testing.T) {
	addr := milvusAddr(t)
	kbtest.RunIndexTests(t, func(t *testing.T) kb.Index { return openTest(t, addr) })
}

// TestSecondInstance searches a collection through an Index that did not
// create it (what rag-snapshot does after rag-seed).
func TestSecondInstance(t *testing.T) {
	addr := milvusAddr(t)
	ctx := context.Background()
	ix := openTest(t, addr)
	defer ix.Close()
	if err := ix.Ensure(ctx, 4); err != nil {
		t.Fatal(err)
	}
	c := kb.Chunk{EvidenceKey: "d#0", DocID: "d", KBScope: "s", Text: "hello quokka", Vector: []float32{1, 0, 0, 0}}
	if err := ix.Upsert(ctx, []kb.Chunk{c}); err != nil {
		t.Fatal(err)
	}
	ix2, err := Open(ctx, Config{Addr: addr, Collection: ix.Collection()})
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	hits, err := ix2.Search(ctx, kb.SearchRequest{Mode: kb.Hybrid, Vector: []float32{0, 1, 0, 0}, Text: "quokka", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].EvidenceKey != "d#0" {
		t.Errorf("hits %+v, want only d#0", hits)
	}
	// Its dimension was read from the collection.
	if err := ix2.Upsert(ctx, []kb.Chunk{{EvidenceKey: "e#0", DocID: "e", KBScope: "s", Vector: []float32{1, 2}}}); err == nil {
		t.Error("Upsert of a 2-dim vector into a 4-dim collection: no error")
	}
}

// TestForeignSchema: a collection of the same name with another schema is
// an error naming --recreate, and Recreate replaces it.
func TestForeignSchema(t *testing.T) {
	addr := milvusAddr(t)
	ctx := context.Background()
	ix := openTest(t, addr)
	defer ix.Close()
	schema := entity.NewSchema().WithName(ix.Collection()).
		WithField(entity.NewField().WithName("pk").WithDataType(entity.FieldTypeInt64).WithIsPrimaryKey(true)).
		WithField(entity.NewField().WithName("dense").WithDataType(entity.FieldTypeFloatVector).WithDim(4))
	if err := ix.cli.CreateCollection(ctx, milvusclient.NewCreateCollectionOption(ix.Collection(), schema)); err != nil {
		t.Fatal(err)
	}
	err := ix.Ensure(ctx, 4)
	if err == nil || !strings.Contains(err.Error(), "--recreate") {
		t.Fatalf("Ensure over a foreign collection: %v, want an error naming --recreate", err)
	}
	if err := ix.Recreate(ctx, 4); err != nil {
		t.Fatalf("Recreate: %v", err)
	}
	if err := ix.Ensure(ctx, 4); err != nil {
		t.Errorf("Ensure after Recreate: %v", err)
	}
}

// TestNewlineInFilter: a value the expression grammar cannot hold is a
// clear error, not a broken or widened filter.
func TestNewlineInFilter(t *testing.T) {
	addr := milvusAddr(t)
	ctx := context.Background()
	ix := openTest(t, addr)
	defer ix.Close()
	if err := ix.Ensure(ctx, 4); err != nil {
		t.Fatal(err)
	}
	_, err := ix.Count(ctx, kb.Filter{KBScope: "a\nb"})
	if err == nil || !strings.Contains(err.Error(), "line break") {
		t.Errorf("Count with a newline in kbScope: %v, want a line break error", err)
	}
	_, err = ix.Search(ctx, kb.SearchRequest{Mode: kb.Dense, Vector: []float32{1, 0, 0, 0}, K: 1, Filter: kb.Filter{Categories: []string{"x\r"}}})
	if err == nil {
		t.Error("Search with a CR in a category: no error")
	}
	if err := ix.DeleteDocument(ctx, "s", "doc\n"); err == nil {
		t.Error("DeleteDocument with a newline: no error")
	}
}

// TestUnreachable: a closed port and a server that never answers are both
// clear errors naming the address, within the timeout. The shared Milvus
// is not touched.
func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()

	// A listener that accepts connections and never says a word.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()

	for _, addr := range []string{closed, silent.Addr().String()} {
		start := time.Now()
		ix, err := Open(context.Background(), Config{Addr: addr, ConnectTimeout: 2 * time.Second})
		took := time.Since(start)
		if err == nil {
			ix.Close()
			t.Fatalf("Open(%s): no error", addr)
		}
		if !strings.Contains(err.Error(), addr) {
			t.Errorf("Open(%s): error %q does not name the address", addr, err)
		}
		if took > 5*time.Second {
			t.Errorf("Open(%s) took %s with a 2s timeout", addr, took)
		}
		t.Logf("Open(%s) after %s: %v", addr, took.Round(time.Millisecond), err)
	}
}

// TestServerGoneMidRun: calls on an index whose server went away fail
// within the timeout with the address, and never hang. The server here is a
// TCP proxy to the shared Milvus that the test closes. Milvus itself keeps
// running.
func TestServerGoneMidRun(t *testing.T) {
	target := milvusAddr(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			conns = append(conns, c, up)
			go pipe(c, up)
			go pipe(up, c)
		}
	}()
	addr := l.Addr().String()
	ctx := context.Background()
	ix, err := Open(ctx, Config{Addr: addr, Collection: testCollection(t), Timeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.Ensure(ctx, 4); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ix2, err := Open(ctx, Config{Addr: target, Collection: ix.Collection()})
		if err == nil {
			ix2.Drop(ctx)
			ix2.Close()
		}
	})
	// The proxy goes away.
	l.Close()
	<-done
	for _, c := range conns {
		c.Close()
	}
	start := time.Now()
	_, err = ix.Count(ctx, kb.Filter{})
	took := time.Since(start)
	if err == nil {
		t.Fatal("Count with the server gone: no error")
	}
	if !strings.Contains(err.Error(), addr) {
		t.Errorf("error %q does not name the address", err)
	}
	if took > 8*time.Second {
		t.Errorf("Count took %s with a 3s timeout", took)
	}
	// Callers retry it, and serve answers it 504, by its methods alone.
	var me *Error
	if !errors.As(err, &me) || !me.Transient() || !me.DeadlineExceeded() {
		t.Errorf("error %q: want an *Error that is transient and a deadline exceeded", err)
	}
	t.Logf("Count after %s: %v", took.Round(time.Millisecond), err)
}

func pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			dst.Close()
			return
		}
	}
}

func TestOpenConfig(t *testing.T) {
	for _, cfg := range []Config{
		{},
		{Addr: "127.0.0.1:1", Collection: "bad-name"},
		{Addr: "127.0.0.1:1", Collection: "1abc"},
		{Addr: "127.0.0.1:1", Collection: `x" or "`},
	} {
		if ix, err := Open(context.Background(), cfg); err == nil {
			ix.Close()
			t.Errorf("Open(%+v): no error", cfg)
		}
	}
}
