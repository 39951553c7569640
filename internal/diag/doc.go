// Package diag holds what messages about input have in common: Error, the
// FILE:LINE: MESSAGE error of every reader of a file a user writes.
//
// The readers of golden cases and fixtures (contract), seed documents
// (corpus), TREC files (metrics) and mapped pipeline configs (mapped) all
// report a problem as an *Error, alone or in a List. A message thus names
// its place the same way everywhere, and one errors.As finds it.
//
// The package imports nothing but the standard library. That is what lets
// metrics, which imports only the standard library as benchstat's
// benchmath does, report its syntax errors as an *Error. Keep it so.
package diag
