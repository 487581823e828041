// Package web is swarm serve's page: one HTML file, its script and its style sheet, embedded
// in the binary and served by Handler. There is no build step and no framework: the files
// under static/ are what the browser runs.
//
// The page reads the server's JSON API (/api/v1/...) and its event stream, and nothing else:
// no fonts, scripts or requests leave the origin, and every script and style is a file of
// its own, so the server's Content-Security-Policy (script-src 'self'; style-src 'self')
// holds without exceptions. What the API says is put on the page as text; the one HTML it
// gives, a screen's colours, was escaped by the server and is the only HTML inserted.
//
// The scripts are ES modules: app.js routes the hash (#/, #/w/NAME, #/night) to fleet.js,
// worker.js and night.js; api.js speaks to the server, live.js follows the event stream,
// dom.js and svg.js build elements, words.js says times, costs and states as people read
// them.
//
// Every file is served with its ETag (a hash of its bytes) and Cache-Control: no-cache, so
// a browser asks again each time and a new binary's page is never mixed with an old one's.
// The package webtest starts a headless Chromium for the browser tests, here and against a
// real swarm serve.
package web
