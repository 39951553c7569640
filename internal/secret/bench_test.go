package secret

import (
	"strings"
	"testing"
)

// BenchmarkScrub scrubs 1 MiB of JSON-like text holding no secret with
// three values set: the cost of scrubbing a large error body.
func BenchmarkScrub(b *testing.B) {
	var s Set
	s.Add("A", "AKIAabc/def+ghi123")
	s.Add("B", "https://user:pa55@search.internal:9200")
	s.Add("C", "sk-0123456789abcdef")
	msg := strings.Repeat(`{"id": 12345, "text": "Threads_connected \u00e9 max_connections 100%", "url": "https:\/\/x.example\/a&amp;b"}, `, 1<<20/100)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		s.Scrub(msg)
	}
}
