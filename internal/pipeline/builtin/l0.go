package builtin

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

// l0Term is an L0 term ready for matching.
type l0Term struct {
	norm string // textnorm.Normalize(Term), at least 2 characters
	kb.L0Term
}

// l0Entry is the cached L0 index of one kbScope.
type l0Entry struct {
	loaded time.Time
	terms  []l0Term
}

// maxL0Scopes bounds the cache, which a server fills with whatever kbScopes
// clients send.
const maxL0Scopes = 256

// l0Cache caches the normalised L0 terms per kbScope for ttl.
type l0Cache struct {
	ttl time.Duration
	now func() time.Time

	mu sync.Mutex
	m  map[string]*l0Entry
}

func newL0Cache(ttl time.Duration) *l0Cache {
	return &l0Cache{ttl: ttl, now: time.Now, m: map[string]*l0Entry{}}
}

func (c *l0Cache) invalidate() {
	c.mu.Lock()
	clear(c.m)
	c.mu.Unlock()
}

// terms returns the matchable L0 terms of kbScope, from the cache when they
// were loaded less than ttl ago.
func (c *l0Cache) terms(ctx context.Context, cat kb.Catalog, kbScope string) ([]l0Term, error) {
	if c.ttl > 0 {
		c.mu.Lock()
		e := c.m[kbScope]
		c.mu.Unlock()
		if e != nil && c.now().Sub(e.loaded) < c.ttl {
			return e.terms, nil
		}
	}
	loaded := c.now()
	raw, err := cat.L0Terms(ctx, kbScope)
	if err != nil {
		return nil, err
	}
	terms := make([]l0Term, 0, len(raw))
	for _, t := range raw {
		n := textnorm.Normalize(t.Term)
		if utf8.RuneCountInString(n) < 2 {
			continue
		}
		terms = append(terms, l0Term{norm: n, L0Term: t})
	}
	if c.ttl > 0 {
		c.mu.Lock()
		if len(c.m) >= maxL0Scopes {
			clear(c.m)
		}
		c.m[kbScope] = &l0Entry{loaded: loaded, terms: terms}
		c.mu.Unlock()
	}
	return terms, nil
}

// matchL0 computes the L0 hints of a query (docs/pipeline.md, step 2). A
// term matches when its normalised form, at least 2 characters long, is a
// substring of the normalised query. Each matching term gives one vote to
// its document's category. A term listed twice for the same document, as
// keyword and alias say, votes once. The hint is every category with at
// least minVotes votes, by votes descending, then name. matchedTerms, as
// written in the frontmatter, and matchedSources are those of the hinted
// categories, sorted and deduplicated.
func matchL0(terms []l0Term, query string, minVotes int) contract.L0Hints {
	nq := textnorm.Normalize(query)
	type vote struct{ norm, docID string }
	seen := map[vote]bool{}
	votes := map[string]int{}
	var matched []l0Term
	for _, t := range terms {
		if !strings.Contains(nq, t.norm) {
			continue
		}
		v := vote{t.norm, t.DocID}
		if seen[v] {
			continue
		}
		seen[v] = true
		votes[t.Category]++
		matched = append(matched, t)
	}
	h := contract.L0Hints{Categories: []string{}, MatchedTerms: []string{}, MatchedSources: []string{}}
	for cat, n := range votes {
		if n >= minVotes {
			h.Categories = append(h.Categories, cat)
		}
	}
	slices.SortFunc(h.Categories, func(a, b string) int {
		if votes[a] != votes[b] {
			return votes[b] - votes[a]
		}
		return strings.Compare(a, b)
	})
	for _, t := range matched {
		if votes[t.Category] >= minVotes {
			h.MatchedTerms = append(h.MatchedTerms, t.Term)
			h.MatchedSources = append(h.MatchedSources, t.Source)
		}
	}
	slices.Sort(h.MatchedTerms)
	h.MatchedTerms = slices.Compact(h.MatchedTerms)
	slices.Sort(h.MatchedSources)
	h.MatchedSources = slices.Compact(h.MatchedSources)
	return h
}
