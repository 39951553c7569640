package mapped

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/lookuphttp"
)

// TestCharset: an answer in the charset its Content-Type declares is
// decoded (café in ISO-8859-1 stays café), and an answer that is not UTF-8
// and declares no other charset is a protocol error giving the byte
// offset, as with --pipeline http. Nothing becomes U+FFFD silently.
func TestCharset(t *testing.T) {
	for _, tc := range []struct {
		name, contentType string
		body              []byte
		want, wantErr     string
	}{
		{"latin-1 declared", "application/json; charset=iso-8859-1", []byte("{\"hits\": [{\"id\": \"d\", \"text\": \"caf\xe9\", \"score\": 0.8}]}"), "café", ""},
		{"utf-8", "application/json", []byte(`{"hits": [{"id": "d", "text": "café", "score": 0.8}]}`), "café", ""},
		{"not utf-8", "application/json", []byte("{\"hits\": [{\"id\": \"d\", \"text\": \"caf\xe9\", \"score\": 0.8}]}"), "", "response is not valid UTF-8 (byte 34)"},
		{"unknown charset", "application/json; charset=x-nope", []byte(`{"hits": []}`), "", `response charset "x-nope" is not one this client decodes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				w.Write(tc.body)
			}))
			defer srv.Close()
			p := openConfig(t, writeConfig(t, secretConfig), map[string]string{"SVC_URL": srv.URL, "SVC_TOKEN": token, "SVC_KEY": key})
			res, err := p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "rag-eval", TopK: 5})
			if tc.wantErr != "" {
				var pe *lookuphttp.ProtocolError
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want a *lookuphttp.ProtocolError saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.EvidenceBlocks) != 1 {
				t.Fatalf("%d blocks, want 1", len(res.EvidenceBlocks))
			}
			if got := res.EvidenceBlocks[0].Excerpt; got != tc.want {
				t.Errorf("excerpt %q, want %q", got, tc.want)
			}
		})
	}
}
