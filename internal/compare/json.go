package compare

import (
	"bufio"
	"encoding/json"
	"io"
)

// WriteJSON writes r as indented JSON: keys in struct order, floats rounded
// to 6 decimals, arrays never null, no HTML escaping. The same comparison
// always gives the same bytes.
func (r *Report) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

func writeJSON(w io.Writer, v any) error {
	b := bufio.NewWriter(w)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return b.Flush()
}
