package sqlcatalog

import "database/sql"

// Dialect is everything that differs between the SQL backends. Both drivers
// take "?" placeholders, so the statements themselves are shared. Only
// column types, table options, the "insert unless it exists" form and the
// recognition of a duplicate-key error differ.
type Dialect struct {
	// Name is the backend's name in messages: "sqlite", "mysql".
	Name string
	// KeyType is the column type of an exact string of at most n bytes:
	// compared byte for byte, case-sensitive, without trailing-space
	// padding, ordered as Go orders strings. Every column that is
	// compared or ordered has this type.
	KeyType func(n int) string
	// TextType is the column type of a string of at most MaxText bytes
	// that is stored and returned but never compared.
	TextType string
	// IntType is the column type of a count or an index.
	IntType string
	// TableOptions follow the closing parenthesis of CREATE TABLE.
	TableOptions string
	// InlineIndexes declares secondary indexes inside CREATE TABLE, for
	// MySQL, which has no CREATE INDEX IF NOT EXISTS. Without it they are
	// separate CREATE INDEX IF NOT EXISTS statements, as for SQLite.
	InlineIndexes bool
	// IgnoreDuplicate ends an INSERT so that a row whose key already
	// exists is skipped, and every other error is still an error
	// (MySQL's INSERT IGNORE would turn them into warnings). col is a
	// column of the table's key.
	IgnoreDuplicate func(col string) string
	// IsDuplicate reports whether err is a primary-key or unique-key
	// violation.
	IsDuplicate func(err error) bool
	// IsNoTable reports whether err says a table does not exist (Verify
	// tells a catalog that was never initialised from a broken one).
	IsNoTable func(err error) bool
	// IsNoColumn reports whether err says a column does not exist (a
	// catalog of an older build, before Init adds the column).
	IsNoColumn func(err error) bool
	// WriteTx are the options of write transactions, nil for the driver's
	// default.
	WriteTx *sql.TxOptions
}
