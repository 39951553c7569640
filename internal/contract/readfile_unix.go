//go:build unix

package contract

import "syscall"

// A named pipe swapped in after the lookup must not block the open, and a
// symbolic link swapped in must not be followed.
const (
	openNonBlock = syscall.O_NONBLOCK
	openNoFollow = syscall.O_NOFOLLOW
)
