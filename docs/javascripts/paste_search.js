// Site search that survives a pasted error message (issue 39).
//
// Material's search hands the query to Lunr.js, and two things there defeat a pasted message:
//
// - The query syntax gives some characters a meaning: "word:" names a field, "-word" and
//   "+word" exclude or require a word, "~" and "^" set edit distance and boost, and Material
//   requires every word between double quotes. A path such as
//   ".../site-packages/tensorflow_io/python/ops/__init__.py:98:" is read as an unknown field
//   and the whole search fails; "-[MPSGraph adamUpdate...]" excludes the very section that
//   explains it; a quoted path of the reader's own requires words no page holds. Those
//   characters become plain separators here, as the index already treats them
//   (mkdocs.yml: plugins.search.separator).
// - Material searches every word as a prefix, and Lunr.js 2.3.9 can expand a short number to
//   words the index does not hold ("225*" to "225.47", from "225.8" and "22.57"); the search
//   worker then throws and shows nothing, for the whole query. A whole number ("2" in
//   "shape [2]", a line number, a process id) is a message's variable part, so it is left out
//   when other words remain. Versions such as "2.16.2" are searched as before.
(function () {
  "use strict";

  const QUERY = 2; // Material's SearchMessageType.QUERY: the message that carries the query
  const SEPARATOR = /[\s\-,:!=\[\]()"/]+|\.(?!\d)|&[lg]t;/; // mkdocs.yml: plugins.search.separator
  const WHOLE_NUMBER = /^\d+$/;

  function withoutWholeNumbers(word) {
    const parts = word.split(SEPARATOR).filter((part) => part !== "");
    if (!parts.some((part) => WHOLE_NUMBER.test(part))) return word;
    return parts.filter((part) => !WHOLE_NUMBER.test(part)).join(" ");
  }

  function pasteSafe(query) {
    const words = query
      .replace(/[:~^"]/g, " ") // field names, edit distance, boost, required phrases
      .replace(/(^|\s)[-+]+/g, "$1") // a leading "-" or "+" excludes or requires a word
      .split(/\s+/)
      .filter((word) => word !== "");
    const kept = words.map(withoutWholeNumbers).join(" ").trim();
    return kept || words.join(" ");
  }

  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message && message.type === QUERY && typeof message.data === "string") {
      message = Object.assign({}, message, { data: pasteSafe(message.data) });
    }
    return post.call(this, message, ...rest);
  };

  window.__pasteSafeSearch = pasteSafe; // for the browser tests
})();
