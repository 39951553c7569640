package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
)

type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr,omitempty"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
	// SystemOut says which checks the pipeline cannot be judged on, when
	// it declares it lacks parts a check needs.
	SystemOut string `xml:"system-out,omitempty"`
}

type junitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	// SystemOut lists the skipped checks of a case that was judged on
	// its other checks.
	SystemOut string `xml:"system-out,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// WriteJUnit renders r as JUnit XML, one testsuite with one testcase per
// case. A testcase's classname is the scenario, its name the caseId, its
// time "0". A failing case carries a <failure> with its check messages. A
// not_run or error case carries an <error>. A skipped case carries a
// <skipped message="skipped checks: …">, and a draft a <skipped
// message="draft: …">, both counted in the suite's skipped attribute,
// which is written only when some case was skipped or is a draft. A passing or
// failing case with skipped checks lists them, with their reasons, in its
// <system-out>. When the pipeline declares it lacks parts a check needs,
// the suite's own <system-out> says which checks it cannot be judged on.
func (r *Report) WriteJUnit(w io.Writer) error { return r.WriteJUnitDiff(w, nil) }

// WriteJUnitDiff is WriteJUnit with the regressions of d marked. d is a
// diff of r against a baseline, nil for none. A regressed case is a
// <failure type="regression">, even when it passes. Its message starts
// with the rules it broke ("regressed: status pass → fail; …") and then
// names its failed checks. Its body has the rules and one "check: message"
// line per failed check. A regressed not_run or error case keeps its
// <error>, with its message led by the rules. A case removed since the
// baseline is a testcase of classname "removed" with such a failure.
func (r *Report) WriteJUnitDiff(w io.Writer, d *Diff) error {
	regressed := map[string]*CaseDiff{}
	var removed []string
	if d != nil {
		for i := range d.Cases {
			switch c := &d.Cases[i]; c.Change {
			case ChangeRegressed:
				regressed[c.CaseID] = c
			case ChangeRemoved:
				removed = append(removed, c.CaseID)
			}
		}
	}
	s := junitSuite{Name: "rag-eval", Tests: len(r.Cases) + len(removed), Time: "0", SystemOut: r.Unjudgeable()}
	for i := range r.Cases {
		c := &r.Cases[i]
		jc := junitCase{ClassName: c.Scenario, Name: c.CaseID, Time: "0"}
		var why string
		if cd := regressed[c.CaseID]; cd != nil && cd.Explain != nil {
			why = "regressed: " + strings.Join(cd.Explain.Why, "; ")
		}
		switch c.Status {
		case judge.StatusNotRun, judge.StatusError:
			s.Errors++
			reason := mdcell.Or(c.Reason, "")
			msg := reason
			if why != "" {
				msg = why + ": " + reason
			}
			jc.Error = &junitProblem{Message: msg, Type: string(c.Status), Body: msg}
		case judge.StatusFail:
			s.Failures++
			var msgs []string
			for _, ch := range c.Checks {
				if !ch.Passed && !ch.Skipped {
					msgs = append(msgs, fmt.Sprintf("%s: %s", ch.Name, mdcell.Or(ch.Message, "")))
				}
			}
			jc.Failure = &junitProblem{
				Message: "failed checks: " + strings.Join(c.FailedChecks, ", "),
				Type:    "fail", Body: strings.Join(msgs, "\n"),
			}
			if why != "" {
				jc.Failure.Message = why + "; " + jc.Failure.Message
				jc.Failure.Type = "regression"
				jc.Failure.Body = why + "\n" + jc.Failure.Body
			}
		case judge.StatusSkipped, judge.StatusDraft:
			if why != "" {
				s.Failures++
				jc.Failure = &junitProblem{Message: why, Type: "regression", Body: why}
				break
			}
			s.Skipped++
			if c.Status == judge.StatusDraft {
				jc.Skipped = &junitSkipped{Message: draftWhy(c)}
				break
			}
			jc.Skipped = &junitSkipped{Message: "skipped checks: " + skippedWhy(c)}
		default:
			if why != "" {
				s.Failures++
				jc.Failure = &junitProblem{Message: why, Type: "regression", Body: why}
			}
		}
		if len(c.SkippedChecks) > 0 && jc.Skipped == nil {
			jc.SystemOut = "skipped checks: " + skippedWhy(c)
		}
		s.Cases = append(s.Cases, jc)
	}
	for _, id := range removed {
		s.Failures++
		msg := "regressed: removed since the baseline"
		s.Cases = append(s.Cases, junitCase{ClassName: "removed", Name: id, Time: "0",
			Failure: &junitProblem{Message: msg, Type: "regression", Body: msg}})
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// draftWhy is a draft's skip message: "draft: not judged until it is
// assessed", then its reason when it has one ("; no fixture at …").
func draftWhy(c *judge.CaseResult) string {
	msg := "draft: not judged until it is assessed"
	if c.Reason != nil {
		msg += "; " + *c.Reason
	}
	return msg
}

// skippedWhy is "selected_attempt (pipeline declares no trace), …".
func skippedWhy(c *judge.CaseResult) string {
	var parts []string
	for _, ch := range c.Checks {
		if ch.Skipped {
			parts = append(parts, fmt.Sprintf("%s (%s)", ch.Name, mdcell.Or(ch.Message, "")))
		}
	}
	return strings.Join(parts, ", ")
}
