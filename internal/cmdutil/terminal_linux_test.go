package cmdutil

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// A pseudo-terminal is a terminal.
func TestIsTerminalPTY(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	defer ptmx.Close()
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("TIOCGPTN: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlock: %v", err)
	}
	pts, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the terminal: %v", err)
	}
	defer pts.Close()
	if !IsTerminal(pts) {
		t.Error("a pseudo-terminal is not taken for a terminal")
	}
	t.Setenv("NO_COLOR", "")
	f := &Streams{Out: pts, ErrOut: pts}
	if !f.ColourOut() {
		t.Error("no colour on a terminal")
	}
	if f.Progress("x") == nil {
		t.Error("no progress bar on a terminal")
	}
	t.Setenv("NO_COLOR", "1")
	if f.ColourOut() {
		t.Error("colour with NO_COLOR set")
	}
}
