package main

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"
)

// netprobeMain is `netprobe URL`: a GET of URL through the proxy the environment names
// (HTTP_PROXY), for every host: Go's own rule skips the proxy for loopback, which agents'
// HTTP clients do not. It prints the status, or the error, and exits 0 on a 2xx answer.
func netprobeMain() int {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: netprobe URL")
		return 2
	}
	tr := &http.Transport{}
	if p := os.Getenv("HTTP_PROXY"); p != "" {
		u, err := url.Parse(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "netprobe:", err)
			return 2
		}
		tr.Proxy = http.ProxyURL(u)
	}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	resp, err := client.Get(os.Args[1])
	if err != nil {
		fmt.Println("netprobe: error:", err)
		return 1
	}
	resp.Body.Close()
	fmt.Println("netprobe:", resp.Status)
	if resp.StatusCode/100 != 2 {
		return 1
	}
	return 0
}
