package lookuphttp

import (
	"fmt"
	"net/http"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/ragbaseline/ragbaseline/internal/secret"
)

// ParseHeaders parses "Name: value" entries into the Header of a Client:
// rag-snapshot's --lookup-header and --sidecar-header, in the order given.
// In a value, ${NAME} and ${NAME:-default} are replaced by the environment
// variable (getenv), and $$ is a $ (secret.Expand). Each value read from
// the environment is added to secrets, so the Client can keep it out of
// its errors. The value is trimmed of spaces around it.
//
// The errors never quote a value. They are an entry without a colon, a
// name that is not an HTTP header name, a name given twice, ignoring case,
// and Content-Length, Transfer-Encoding or Trailer, which the client sets.
// They are an empty value, a malformed ${…} reference, a variable that is
// unset without a default, which is named, and a value that holds a
// control character such as a newline once expanded.
func ParseHeaders(entries []string, getenv func(string) (string, bool), secrets *secret.Set) (http.Header, error) {
	h := http.Header{}
	for _, e := range entries {
		name, value, err := parseHeader(e, getenv, secrets)
		if err != nil {
			return nil, err
		}
		if _, dup := h[name]; dup {
			return nil, fmt.Errorf("%s: given twice (header names ignore case)", name)
		}
		h[name] = []string{value}
	}
	return h, nil
}

// ClientSetHeader reports whether a header is the HTTP client's to set
// (Content-Length, Transfer-Encoding, Trailer: Go drops a value given for
// them), so that a user's headers (flags, a mapped config) refuse it.
func ClientSetHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Content-Length", "Transfer-Encoding", "Trailer":
		return true
	}
	return false
}

// parseHeader parses one entry. name is canonical (http.CanonicalHeaderKey).
func parseHeader(e string, getenv func(string) (string, bool), secrets *secret.Set) (name, value string, err error) {
	rawName, rawValue, ok := strings.Cut(e, ":")
	if !ok {
		return "", "", fmt.Errorf(`want "Name: value", got an entry without a colon`)
	}
	if !httpguts.ValidHeaderFieldName(rawName) {
		return "", "", fmt.Errorf("%q is not an HTTP header name (want \"Name: value\", the name without spaces)", rawName)
	}
	name = http.CanonicalHeaderKey(rawName)
	if ClientSetHeader(name) {
		return "", "", fmt.Errorf("%s: set by the client, not by a header flag", name)
	}
	rawValue = strings.Trim(rawValue, " \t")
	if rawValue == "" {
		return "", "", fmt.Errorf("%s: no value", name)
	}
	value, err = secret.Expand(rawValue, getenv, secrets)
	if err != nil {
		return "", "", fmt.Errorf("%s: %v", name, err)
	}
	if !httpguts.ValidHeaderFieldValue(value) {
		return "", "", fmt.Errorf("%s: the value holds a control character (a newline?) once its ${…} references are expanded", name)
	}
	return name, value, nil
}
