package calibrate

import (
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// TestOffTopic pins which cases are off-topic, with either evidence-status
// field.
func TestOffTopic(t *testing.T) {
	no := false
	tests := []struct {
		name string
		c    contract.Case
		want bool
	}{
		{"expectedFound false", contract.Case{ExpectedFound: &no}, true},
		{"status none", contract.Case{ExpectedEvidenceStatus: "none"}, true},
		{"status weak, trimmed", contract.Case{ExpectedEvidenceStatus: " weak "}, true},
		{"status sufficient", contract.Case{ExpectedEvidenceStatus: "sufficient"}, false},
		{"statuses weak or none", contract.Case{ExpectedEvidenceStatuses: []string{"weak", "none"}}, true},
		{"statuses that allow sufficient", contract.Case{ExpectedEvidenceStatuses: []string{"weak", "sufficient"}}, false},
		{"no status", contract.Case{ExpectedSelectedAttempt: "FILTERED_VECTOR"}, false},
		{"names a document", contract.Case{ExpectedSources: []string{"a"}, ExpectedEvidenceStatuses: []string{"none"}}, false},
	}
	for _, tt := range tests {
		if got := OffTopic(&tt.c); got != tt.want {
			t.Errorf("%s: OffTopic = %v, want %v", tt.name, got, tt.want)
		}
	}
}
