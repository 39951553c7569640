package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/texttab"
)

type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// WriteJUnit renders r as JUnit XML: one testsuite, one testcase per case
// (classname = scenario, name = caseId, time="0"); a failing case carries a
// <failure> with its check messages, a not_run or error case an <error>.
func (r *Report) WriteJUnit(w io.Writer) error {
	s := junitSuite{Name: "rag-eval", Tests: len(r.Cases), Time: "0"}
	for i := range r.Cases {
		c := &r.Cases[i]
		jc := junitCase{ClassName: c.Scenario, Name: c.CaseID, Time: "0"}
		switch c.Status {
		case judge.StatusFail:
			s.Failures++
			var msgs []string
			for _, ch := range c.Checks {
				if !ch.Passed {
					msgs = append(msgs, fmt.Sprintf("%s: %s", ch.Name, texttab.Or(ch.Message, "")))
				}
			}
			jc.Failure = &junitProblem{
				Message: "failed checks: " + strings.Join(c.FailedChecks, ", "),
				Type:    "fail", Body: strings.Join(msgs, "\n"),
			}
		case judge.StatusNotRun, judge.StatusError:
			s.Errors++
			reason := texttab.Or(c.Reason, "")
			jc.Error = &junitProblem{Message: reason, Type: string(c.Status), Body: reason}
		}
		s.Cases = append(s.Cases, jc)
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
