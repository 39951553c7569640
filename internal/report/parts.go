package report

import "github.com/ragbaseline/ragbaseline/internal/judge"

// A pipeline that declares its capabilities (contract.Pipeline) may lack
// parts of a lookup result: the trace, the fallback reason, the rerank
// trace, the context pack, the evidence status, the scores. The text,
// Markdown, JUnit, PR summary and HTML reports then omit the rows and
// columns of the parts no case can have, such as the selected attempt and
// the fallback rate of a pipeline without trace. They say once, near the
// top, which checks the pipeline cannot be judged on and why. A report of
// a pipeline that declares nothing, the builtin one, keeps every row.

// Lacks reports whether the pipeline that made the report's fixtures, as
// the snapshot's manifest records it, declares that it lacks the part
// capability (contract.Cap*). Then no case of the report can have the
// part. Without a snapshot or a declaration it lacks nothing, and nothing
// lacks "", the capability of what every pipeline has.
func (r *Report) Lacks(capability string) bool {
	return capability != "" && r.Inputs.Snapshot != nil && r.Inputs.Snapshot.Pipeline.Lacks(capability)
}

// Unjudgeable is the sentence that says which checks the report's
// pipeline cannot be judged on and why, unescaped:
//
//	Checks this pipeline cannot be judged on: selected_attempt (pipeline declares no trace), rerank_top_source (pipeline declares no rerank).
//
// It is "" when the pipeline lacks no part a check needs.
func (r *Report) Unjudgeable() string {
	if r.Inputs.Snapshot == nil {
		return ""
	}
	list := judge.UnjudgeableList(r.Inputs.Snapshot.Pipeline)
	if list == "" {
		return ""
	}
	return "Checks this pipeline cannot be judged on: " + list + "."
}
