package serve

import "testing"

func TestScreenHTML(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"<script>alert(1)</script> & 'x'", "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#39;x&#39;"},
		{"\x1b[31mred\x1b[0m plain", `<span class="fg-1">red</span> plain`},
		{"\x1b[1;32mok\x1b[22m still green\x1b[39m", `<span class="fg-2 bold">ok</span><span class="fg-2"> still green</span>`},
		{"\x1b[91;104mbright", `<span class="fg-9 bg-12">bright</span>`},
		{"\x1b[38;5;196mx\x1b[48;5;21my", `<span class="fg-196">x</span><span class="fg-196 bg-21">y</span>`},
		{"\x1b[38;2;255;0;0mtrue", `<span class="fg-196">true</span>`},
		{"\x1b[38;5;999mbad", "bad"},
		{"\x1b[3;4;7;9mall", `<span class="italic underline inverse strike">all</span>`},
		{"\x1b[4:3mcurly", `<span class="underline">curly</span>`},
		{"\x1b[mreset", "reset"},
		{"\x1b[2Jcleared\x1b[H", "cleared"},
		{"\x1b]0;title\x07after", "after"},
		{"\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"\x1bPdcs\x1b\\x", "x"},
		{"bell\x07 and \x08back", "bell and back"},
		{"c1\u009b31mx", "c131mx"},
		{"\x1b[31mone\ntwo\x1b[0m", "<span class=\"fg-1\">one</span>\n<span class=\"fg-1\">two</span>"},
		{"tab\there", "tab\there"},
		{"\x1b[31", ""},
		{"\x1b", ""},
		{"\x1b[31mx\x1b[0m\x1b[31m", `<span class="fg-1">x</span>`},
		{"\x1b[1m<b>\x1b[0m", `<span class="bold">&lt;b&gt;</span>`},
	} {
		if got := ScreenHTML(c.in); got != c.want {
			t.Errorf("ScreenHTML(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
