package mail

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// PlainText renders an email's HTML as the plain-text part that mail
// clients without HTML show: text in reading order with entities decoded,
// blocks and line breaks as line breaks, list items as "- " lines, a link
// as its text followed by its address in parentheses (unless the text is
// the address), and nothing of scripts, styles or the head.
func PlainText(htmlBody string) string {
	z := html.NewTokenizer(strings.NewReader(htmlBody))
	var w textWriter
	hidden := 0 // depth inside elements whose text is not shown
	var links []link
	for {
		switch z.Next() {
		case html.ErrorToken:
			return w.String()
		case html.TextToken:
			if hidden > 0 {
				continue
			}
			text := string(z.Text())
			w.text(text)
			if n := len(links); n > 0 {
				links[n-1].text.WriteString(text)
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			selfClosing := tok.Type == html.SelfClosingTagToken
			switch tok.DataAtom {
			case atom.Script, atom.Style, atom.Head, atom.Title, atom.Template:
				if !selfClosing {
					hidden++
				}
			case atom.Br:
				w.lineBreak(1)
			case atom.Li:
				w.lineBreak(1)
				w.text("- ")
			case atom.Td, atom.Th:
				w.text(" ")
			case atom.Img:
				for _, a := range tok.Attr {
					if a.Key == "alt" {
						w.text(a.Val)
					}
				}
			case atom.A:
				if !selfClosing {
					links = append(links, link{href: attr(tok, "href")})
				}
			default:
				if breaks := blockBreaks(tok.DataAtom); breaks > 0 {
					w.lineBreak(breaks)
				}
			}
		case html.EndTagToken:
			tok := z.Token()
			switch tok.DataAtom {
			case atom.Script, atom.Style, atom.Head, atom.Title, atom.Template:
				if hidden > 0 {
					hidden--
				}
			case atom.A:
				if n := len(links); n > 0 {
					l := links[n-1]
					links = links[:n-1]
					shown := strings.TrimSpace(l.text.String())
					if l.href != "" && l.href != shown && !strings.HasPrefix(l.href, "#") && hidden == 0 {
						w.text(" (" + strings.TrimPrefix(l.href, "mailto:") + ")")
					}
				}
			default:
				if breaks := blockBreaks(tok.DataAtom); breaks > 0 {
					w.lineBreak(breaks)
				}
			}
		}
	}
}

// link is an open <a> element: its address and the text shown so far.
type link struct {
	href string
	text strings.Builder
}

func attr(tok html.Token, key string) string {
	for _, a := range tok.Attr {
		if a.Key == key {
			return strings.TrimSpace(a.Val)
		}
	}
	return ""
}

// blockBreaks is how many line breaks separate a block element from its
// neighbours: 2 (a blank line) around paragraphs and headings, 1 around
// other blocks, 0 for inline elements.
func blockBreaks(a atom.Atom) int {
	switch a {
	case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Table, atom.Ul, atom.Ol, atom.Blockquote, atom.Pre, atom.Hr:
		return 2
	case atom.Div, atom.Tr, atom.Section, atom.Article, atom.Header, atom.Footer,
		atom.Main, atom.Nav, atom.Aside, atom.Address, atom.Dl, atom.Dt, atom.Dd, atom.Body, atom.Html:
		return 1
	}
	return 0
}

// textWriter collapses HTML whitespace: runs of spaces and newlines in
// text become one space, and line breaks are written only between pieces
// of text, at most one blank line at a time.
type textWriter struct {
	b strings.Builder
	// breaks is the number of line breaks owed before the next text.
	breaks int
	// space is a space owed before the next text on the same line.
	space bool
}

func (w *textWriter) text(s string) {
	if s == "" {
		return
	}
	if isSpace(s[0]) {
		w.space = true
	}
	// Only HTML's whitespace collapses; a non-breaking space stays.
	for i, field := range strings.FieldsFunc(s, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) }) {
		if i > 0 {
			w.space = true
		}
		w.word(field)
	}
	if isSpace(s[len(s)-1]) {
		w.space = true
	}
}

func (w *textWriter) word(s string) {
	if w.b.Len() > 0 {
		switch {
		case w.breaks > 0:
			w.b.WriteString(strings.Repeat("\n", w.breaks))
		case w.space:
			w.b.WriteByte(' ')
		}
	}
	w.breaks, w.space = 0, false
	w.b.WriteString(s)
}

func (w *textWriter) lineBreak(n int) {
	w.breaks = max(w.breaks, n)
	w.space = false
}

func (w *textWriter) String() string { return w.b.String() }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}
