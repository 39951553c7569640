package calibrate

import (
	"bytes"
	"encoding/json"
	"io"
)

// WriteJSON writes r as indented JSON (two spaces, no HTML escaping, a
// trailing newline), keys in the order of the package documentation and
// floats rounded to 6 decimals in their shortest form. The same report
// always gives the same bytes.
func (r *Report) WriteJSON(w io.Writer) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
