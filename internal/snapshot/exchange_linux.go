package snapshot

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories a and b in one atomic step
// (renameat2 RENAME_EXCHANGE, Linux 3.15+): no reader can see either name
// missing or anything but one complete directory under each. It returns
// errExchangeUnsupported when the kernel or the file system cannot (NFS,
// some FUSE and overlay file systems), so the caller falls back to two
// renames.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) {
		return errExchangeUnsupported
	}
	return err
}
