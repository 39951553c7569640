package mysql

import "time"

// SetLockCheckEvery sets how often a held seed lock is checked, for tests,
// and returns the function that restores it.
func SetLockCheckEvery(d time.Duration) (restore func()) {
	old := lockCheckEvery
	lockCheckEvery = d
	return func() { lockCheckEvery = old }
}
