package main

import (
	"runtime/debug"
	"testing"
)

// tuneGC: GOGC 50 unless GOGC is set, and the tool runs it before its
// command (Tool.PreRun).
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	if tool.PreRun == nil {
		t.Fatal("rag-seed's tool has no PreRun: tuneGC does not run")
	}
	t.Setenv("GOGC", "")
	debug.SetGCPercent(100)
	tuneGC(nil, nil)
	if got := debug.SetGCPercent(100); got != 50 {
		t.Errorf("GOGC unset: GC percent %d, want 50", got)
	}
	t.Setenv("GOGC", "200")
	tuneGC(nil, nil)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set: GC percent %d, want it left alone (100)", got)
	}
}
