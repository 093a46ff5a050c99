package mail

import "testing"

func TestPlainText(t *testing.T) {
	tests := []struct {
		name, html, want string
	}{
		{name: "paragraphs", html: "<p>Hello  Jane,</p>\n<p>Your gift\nis waiting.</p>", want: "Hello Jane,\n\nYour gift is waiting."},
		{name: "entities", html: "<p>Tom &amp; Jerry&nbsp;&lt;3 &#8212; caf&eacute;</p>", want: "Tom & Jerry\u00a0<3 \u2014 café"},
		{name: "link with address", html: `<p>Please <a href="https://x.test/c?a=1&amp;b=2">confirm</a>.</p>`, want: "Please confirm (https://x.test/c?a=1&b=2)."},
		{name: "link showing its address", html: `<a href="https://x.test">https://x.test</a>`, want: "https://x.test"},
		{name: "mailto", html: `Write to <a href="mailto:help@x.test">us</a>`, want: "Write to us (help@x.test)"},
		{name: "head style and script hidden", html: "<html><head><title>T</title><style>p{color:red}</style></head><body><script>alert(1)</script><div>Body</div></body></html>", want: "Body"},
		{name: "line breaks", html: "Line one<br>Line two<br/>Line three", want: "Line one\nLine two\nLine three"},
		{name: "list", html: "<p>Steps:</p><ul><li>Pick</li><li>Claim</li></ul><p>Done</p>", want: "Steps:\n\n- Pick\n- Claim\n\nDone"},
		{name: "table cells", html: "<table><tr><td>Gift</td><td>Mug</td></tr></table>", want: "Gift Mug"},
		{name: "image alt", html: `<p><img src="x.png" alt="Logo"> Welcome</p>`, want: "Logo Welcome"},
		{name: "inline tags keep spacing", html: "<p>a <b>bold</b> move</p>", want: "a bold move"},
		{name: "plain text", html: "just text", want: "just text"},
		{name: "empty", html: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PlainText(tt.html); got != tt.want {
				t.Errorf("PlainText(%q) = %q; want %q", tt.html, got, tt.want)
			}
		})
	}
}
