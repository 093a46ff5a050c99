package gifting

import "time"

// FormatTime is the stored and shown form of a time: RFC 3339 UTC with
// milliseconds.
func FormatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }
