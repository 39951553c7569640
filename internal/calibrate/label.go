package calibrate

import (
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// Label is what a golden case says about a block (or a case).
type Label int8

// Labels.
const (
	Unlabelled  Label = iota // the case says nothing about it
	Relevant                 // graded ≥ 1 (a case: a relevant block in top K)
	NonRelevant              // graded 0 or not graded by a case that names its documents, or any block of an off-topic case
)

// String returns the label's JSON name.
func (l Label) String() string {
	switch l {
	case Relevant:
		return "relevant"
	case NonRelevant:
		return "nonRelevant"
	}
	return "unlabelled"
}

// OffTopic reports whether c is an off-topic case: it names no expected
// document and declares that nothing should be found (expectedFound false)
// or that the evidence is weak or none (expectedEvidenceStatus, or
// expectedEvidenceStatuses when every status it accepts is weak or none).
// Every block such a case retrieves is non-relevant.
func OffTopic(c *contract.Case) bool {
	if c.UsesExpectedDocs() {
		return false
	}
	if c.ExpectedFound != nil && !*c.ExpectedFound {
		return true
	}
	statuses := c.EvidenceStatuses()
	for _, s := range statuses {
		switch strings.TrimSpace(s) {
		case contract.EvidenceWeak, contract.EvidenceNone:
		default:
			return false
		}
	}
	return len(statuses) > 0
}

// BlockLabels labels the top-K blocks (r.TopCandidates) of a case result.
// A case that names expected documents labels each block by the grade of
// its document in r.Grades, looked up in the case's identity space (docId
// when the case uses expectedDocIds, else source — as the judge builds its
// ranking): grade ≥ 1 relevant, grade 0 or no grade non-relevant. An
// off-topic case labels every block non-relevant. Any other case labels
// nothing. Results that were not judged have no blocks.
func BlockLabels(r *judge.CaseResult) []Label {
	out := make([]Label, len(r.TopCandidates))
	if !r.Status.Judged() {
		return out
	}
	c := r.Case
	switch {
	case c.UsesExpectedDocs():
		byDocID := c.UsesDocIDIdentity()
		for i := range r.TopCandidates {
			cand := &r.TopCandidates[i]
			id := strings.TrimSpace(cand.Source)
			if byDocID {
				id = cand.DocID // already trimmed, <kbScope>/<source> when absent
			}
			if g, ok := r.Grades[id]; ok && id != "" && g >= 1 {
				out[i] = Relevant
			} else {
				out[i] = NonRelevant
			}
		}
	case OffTopic(c):
		for i := range out {
			out[i] = NonRelevant
		}
	}
	return out
}

// CaseLabel labels a judged case for the case-level statistics, those of
// the evidence gate. It is Relevant when a top-K block is relevant, and
// when the case names expected documents and retrieved no block at all: a
// miss. It is NonRelevant when the case is off-topic, whatever it
// retrieved. It is Unlabelled otherwise. A case that retrieved blocks of
// none of its expected documents tells the gate nothing: it should have
// found evidence but did not. blocks are BlockLabels(r).
func CaseLabel(r *judge.CaseResult, blocks []Label) Label {
	for _, l := range blocks {
		if l == Relevant {
			return Relevant
		}
	}
	switch {
	case !r.Status.Judged():
	case OffTopic(r.Case):
		return NonRelevant
	case r.Case.UsesExpectedDocs() && len(r.TopCandidates) == 0:
		return Relevant
	}
	return Unlabelled
}
