package judge

import (
	"fmt"
	"sort"
	"strings"
)

// ExportTREC writes the document rankings and grades of every case with a
// hit level other than n/a, the judged cases naming expected documents, as
// TREC qrels ("qid 0 docno grade") and run ("qid Q0 docno rank score tag")
// files. Document i of n gets the integer score n-i+1, so trec_eval's
// ordering by descending score reproduces the judge's ranking. Docnos
// containing white space or '%' are percent-encoded. trec_eval -c on the
// two files reproduces every case's Metrics.
func ExportTREC(r *Result) (qrels, run []byte) {
	var q, rn strings.Builder
	for i := range r.Cases {
		c := &r.Cases[i]
		if c.Metrics == nil {
			continue
		}
		qid := c.CaseID
		docs := make([]string, 0, len(c.Grades))
		for d := range c.Grades {
			docs = append(docs, d)
		}
		sort.Strings(docs)
		for _, d := range docs {
			fmt.Fprintf(&q, "%s 0 %s %d\n", qid, trecDocno(d), c.Grades[d])
		}
		n := len(c.Ranking)
		for j, d := range c.Ranking {
			fmt.Fprintf(&rn, "%s Q0 %s %d %d rag-eval\n", qid, trecDocno(d), j+1, n-j)
		}
	}
	return []byte(q.String()), []byte(rn.String())
}

// trecDocno percent-encodes the bytes of d that would break TREC's
// white-space separated format ('%', space, tab, newline and other ASCII
// control characters), so distinct identities stay distinct.
func trecDocno(d string) string {
	var b strings.Builder
	for i := 0; i < len(d); i++ {
		c := d[i]
		if c == '%' || c <= ' ' || c == 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
