// Package mysql is the catalog of the server stack: kb.Catalog in MySQL 8
// or MariaDB 10.5+, through github.com/go-sql-driver/mysql. All SQL is
// shared with the SQLite backend in package sqlcatalog. The tables are
// those of deploy/mysql/schema.sql, which a test keeps equal to SchemaSQL.
//
// The DSN is the driver's, user:password@tcp(host:port)/dbname?params. It
// must name a database, which must exist, and Init creates the tables. Open
// overrides some settings, whatever the DSN says. The connection speaks
// utf8mb4 with the collation utf8mb4_bin. Statements are prepared on the
// server, with interpolateParams off, so values never become SQL text. One
// query is one statement, with multiStatements off. Unless the DSN sets
// them, the dial timeout is 10 s and the read and write timeouts 30 s. So a
// server that stops answering is an error, not a hang. Write transactions
// run at READ COMMITTED.
//
// No error or message of this package contains the DSN's password.
package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/catalog/sqlcatalog"
)

// Catalog is the MySQL kb.Catalog.
type Catalog struct {
	*sqlcatalog.Catalog
}

var _ kb.Catalog = (*Catalog)(nil)

// Dialect is MySQL's SQL, for MySQL 8 and MariaDB alike: VARBINARY keys
// (byte comparison without the trailing-space padding of utf8mb4_bin),
// utf8mb4 TEXT, InnoDB.
var Dialect = &sqlcatalog.Dialect{
	Name:            "mysql",
	KeyType:         func(n int) string { return fmt.Sprintf("VARBINARY(%d)", n) },
	TextType:        "TEXT",
	IntType:         "INT",
	TableOptions:    "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
	InlineIndexes:   true,
	IgnoreDuplicate: func(col string) string { return "ON DUPLICATE KEY UPDATE " + col + " = " + col },
	IsDuplicate: func(err error) bool {
		var e *mysql.MySQLError
		return errors.As(err, &e) && e.Number == 1062 // ER_DUP_ENTRY
	},
	IsNoTable: func(err error) bool {
		var e *mysql.MySQLError
		return errors.As(err, &e) && e.Number == 1146 // ER_NO_SUCH_TABLE
	},
	IsNoColumn: func(err error) bool {
		var e *mysql.MySQLError
		return errors.As(err, &e) && e.Number == 1054 // ER_BAD_FIELD_ERROR
	},
	WriteTx: &sql.TxOptions{Isolation: sql.LevelReadCommitted},
}

// Defaults for settings the DSN does not give.
const (
	DefaultDialTimeout = 10 * time.Second
	DefaultIOTimeout   = 30 * time.Second
)

// Open connects to the database the DSN names and checks that it answers
// within the dial timeout. The error of an unreachable server reads
// "cannot reach MySQL at host:port: …". Call Init to create the tables.
func Open(dsn string) (*Catalog, error) {
	cfg, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultDialTimeout
	}
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = DefaultIOTimeout
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = DefaultIOTimeout
	}
	cfg.InterpolateParams = false
	cfg.MultiStatements = false
	// The driver would log lost connections to stderr. They are returned as
	// errors instead.
	cfg.Logger = &mysql.NopLogger{}
	if err := cfg.Apply(mysql.Charset("utf8mb4", "utf8mb4_bin")); err != nil {
		return nil, fmt.Errorf("mysql catalog: %w", err)
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, redact(fmt.Errorf("mysql catalog: %w", err), cfg.Passwd)
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	db.SetConnMaxLifetime(5 * time.Minute)
	db.SetConnMaxIdleTime(time.Minute)

	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, redact(connectError(cfg, err), cfg.Passwd)
	}
	label := fmt.Sprintf("mysql catalog %s at %s", cfg.DBName, cfg.Addr)
	return &Catalog{sqlcatalog.New(db, Dialect, sqlcatalog.Options{
		Label:   label,
		Explain: func(err error) error { return redact(explain(cfg, err), cfg.Passwd) },
	})}, nil
}

// CheckDSN reports, without connecting, whether dsn is a DSN Open can use.
// The error never shows the password.
func CheckDSN(dsn string) error {
	_, err := parseDSN(dsn)
	return err
}

func parseDSN(dsn string) (*mysql.Config, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("mysql catalog: invalid DSN %s: %s (the form is user:password@tcp(host:port)/dbname?param=value)",
			RedactDSN(dsn), parseErrorText(dsn, err))
	}
	if cfg.DBName == "" {
		return nil, fmt.Errorf("mysql catalog: the DSN %s names no database (user:password@tcp(host:port)/dbname)", RedactDSN(dsn))
	}
	return cfg, nil
}

// connectError says why the first connection failed.
func connectError(cfg *mysql.Config, err error) error {
	var me *mysql.MySQLError
	switch {
	case errors.As(err, &me) && me.Number == 1049: // ER_BAD_DB_ERROR
		return fmt.Errorf("MySQL at %s has no database %q; create it with CREATE DATABASE `%s` CHARACTER SET utf8mb4: %w",
			cfg.Addr, cfg.DBName, cfg.DBName, err)
	case errors.As(err, &me):
		return fmt.Errorf("MySQL at %s refused the connection: %w", cfg.Addr, err)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("cannot reach MySQL at %s: no answer within %s: %w", cfg.Addr, cfg.Timeout, err)
	default:
		return fmt.Errorf("cannot reach MySQL at %s: %w", cfg.Addr, err)
	}
}

// explain says when an error of a running catalog is a lost or silent
// server.
func explain(cfg *mysql.Config, err error) error {
	addr := cfg.Addr
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("MySQL at %s did not answer in time: %w", addr, err)
	case errors.Is(err, mysql.ErrInvalidConn), errors.Is(err, driver.ErrBadConn),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return fmt.Errorf("lost the connection to MySQL at %s (the server stopped, did not answer within %s, or the network failed; an interrupted transaction is rolled back, run again when the server is back): %w",
			addr, cfg.ReadTimeout, err)
	case errors.Is(err, syscall.ECONNREFUSED), errors.As(err, new(*net.OpError)):
		return fmt.Errorf("cannot reach MySQL at %s: %w", addr, err)
	}
	return err
}

// RedactDSN returns dsn with its password replaced by "***". A DSN that
// does not parse is masked from its first ':' to the last '@' that is
// followed by an address, such as "tcp(", "unix(" or "/". Without such an
// '@' it is masked to its end. Wherever the password is, it is masked.
func RedactDSN(dsn string) string {
	start, end, ok := passwordSpan(dsn)
	if !ok {
		return dsn
	}
	return dsn[:start] + "***" + dsn[end:]
}

// passwordSpan returns where the password of dsn may be: exactly where the
// driver finds it if the DSN parses, else the widest span it could be.
func passwordSpan(dsn string) (start, end int, ok bool) {
	if cfg, err := mysql.ParseDSN(dsn); err == nil {
		if cfg.Passwd == "" {
			return 0, 0, false
		}
		// The driver's split: the last '/', the last '@' before it, the
		// first ':' before that.
		slash := strings.LastIndexByte(dsn, '/')
		at := strings.LastIndexByte(dsn[:slash], '@')
		colon := strings.IndexByte(dsn[:at], ':')
		return colon + 1, at, true
	}
	colon := strings.IndexByte(dsn, ':')
	if colon < 0 {
		return 0, 0, false
	}
	for at := len(dsn) - 1; at > colon; at-- {
		if dsn[at] == '@' && looksLikeAddress(dsn[at+1:]) {
			return colon + 1, at, true
		}
	}
	return colon + 1, len(dsn), true
}

// looksLikeAddress reports whether s starts like the part of a DSN after
// the credentials: "/dbname" or "net(".
func looksLikeAddress(s string) bool {
	if strings.HasPrefix(s, "/") {
		return true
	}
	for i, r := range s {
		switch {
		case r == '(':
			return i > 0
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return false
}

// parseErrorText returns the driver's message for a DSN it could not
// parse, unless the message quotes part of where the password may be
// (the driver quotes parameter values and database names).
func parseErrorText(dsn string, err error) string {
	msg := err.Error()
	start, end, ok := passwordSpan(dsn)
	if !ok {
		return msg
	}
	secret := dsn[start:end]
	const window = 3
	if len(secret) < window {
		if strings.Contains(msg, secret) {
			return "malformed DSN"
		}
		return msg
	}
	for i := 0; i+window <= len(secret); i++ {
		if strings.Contains(msg, secret[i:i+window]) {
			return "malformed DSN (if the password holds '/', '@', ':' or '?', check the DSN's syntax)"
		}
	}
	return msg
}

// redact removes password from the text of err, keeping err in the chain.
func redact(err error, password string) error {
	if err == nil || password == "" || !strings.Contains(err.Error(), password) {
		return err
	}
	return &redactedError{msg: strings.ReplaceAll(err.Error(), password, "***"), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
