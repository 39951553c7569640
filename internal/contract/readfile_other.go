//go:build !unix

package contract

// Elsewhere OpenFile relies on the lookup before the open and on the
// check of the opened file after it.
const (
	openNonBlock = 0
	openNoFollow = 0
)
