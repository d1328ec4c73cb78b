// Generated from openapi.yaml by `npm run client:generate` (openapi-typescript). Do not edit:
// change openapi.yaml and regenerate.
export interface paths {
    "/categories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List all categories
         * @description Every category, ordered by `id` ascending: all of them, whatever the count (there is no
         *     paging). A large list is compressed when `Accept-Encoding` allows `br` or `gzip`; a list
         *     too large to send uncompressed to a client that accepts neither gets 406.
         *
         *     The list may be cached but must be revalidated every time: send its `ETag` back in
         *     `If-None-Match` and an unchanged list answers 304 with no body. A list never misses a
         *     category whose 201 was sent before the list began.
         */
        get: operations["listCategories"];
        put?: never;
        /**
         * Create a category
         * @description Validates a NewCategory and stores it under the next `id` (1, 2, 3, … in creation order,
         *     never reused). A create either stores the whole category and answers 201, or stores
         *     nothing and answers an error. Names need not be unique.
         *
         *     With an `Idempotency-Key`, the first request is processed normally and its response kept
         *     for 24 hours, scoped to the API key that sent it; a repeat with the same key and body gets
         *     the same status and body again (the same `id`), stores nothing new, and carries
         *     `Idempotent-Replayed: true`. Without the header, every POST creates a category.
         */
        post: operations["createCategory"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pets/{petId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a pet (deprecated, not implemented)
         * @deprecated
         * @description Named by the interface, deprecated, and not specified: an authenticated request gets 501
         *     `not_implemented`, with a `Deprecation` header (RFC 9745) and, when a sunset date is
         *     configured, a `Sunset` header (RFC 8594). Once that date has passed it gets 410 `gone`
         *     instead, with the same headers. Any valid key will do: no scope is needed. Pet fields are
         *     not defined.
         */
        get: operations["getPet"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/store/orders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List store orders (not implemented)
         * @description Named by the interface and not specified: an authenticated request gets 501
         *     `not_implemented` (any valid key: no scope is needed). Order fields are not defined. Experimental: every answer of the
         *     service carries `Stability: experimental`.
         */
        get: operations["listStoreOrders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description A category, as returned by the service. */
        Category: {
            /**
             * Format: int64
             * @description Assigned by the service on creation: 1, 2, 3, … in creation order, never reused,
             *     always within JavaScript's safe-integer range.
             */
            id: number;
            /**
             * @description The category name: trimmed, 1 to 100 characters (Unicode code points), no control
             *     characters, no bidirectional override or isolate characters (U+202A–U+202E,
             *     U+2066–U+2069), no noncharacters (U+FDD0–U+FDEF, every U+xxFFFE and U+xxFFFF), no tag
             *     characters (U+E0000–U+E007F) outside an emoji flag, and at least one character that
             *     is neither white space nor default-ignorable (Unicode's
             *     Default_Ignorable_Code_Point, as UTS #39 and RFC 8264 use it). Emoji, combining marks
             *     and every script are accepted. Need not be unique.
             */
            name: string;
            /**
             * @description A short description, as sent: at most 1,000 characters (code points), no control
             *     characters other than line feed and tab. Omitted when the category has none; never
             *     `null`.
             */
            description?: string;
        };
        /** @description Sent to create a category. The client never sends `id`. */
        NewCategory: {
            /**
             * @description Leading and trailing white space is trimmed; after trimming, 1 to 100 characters
             *     (Unicode code points), no control characters (U+0000–U+001F, U+007F–U+009F), and
             *     none of what would make a label deceive (see `Category.name`): bidirectional override
             *     or isolate characters, noncharacters, stray tag characters, or only invisible ones.
             */
            name: string;
            /**
             * @description Optional. Stored as sent (not trimmed): at most 1,000 characters (code points), no
             *     control characters other than line feed and tab. `null` is rejected.
             */
            description?: string;
        };
        /** @description Every error response has exactly these three fields. */
        Error: {
            /**
             * @description Machine-readable error code.
             * @enum {string}
             */
            code: "invalid_json" | "invalid_body" | "invalid_idempotency_key" | "unauthorized" | "insufficient_scope" | "gone" | "not_found" | "method_not_allowed" | "idempotency_in_progress" | "payload_too_large" | "unsupported_media_type" | "idempotency_key_reused" | "rate_limited" | "response_too_large" | "internal_error" | "not_implemented" | "service_unavailable" | "bad_request" | "request_timeout" | "request_header_fields_too_large";
            /** @description Human-readable description of the error, to help a person fix the request. */
            message: string;
            /** @description The HTTP status code of the response. */
            status: number;
        };
        /** @description The Error answered by the named-but-unspecified pets and store routes. */
        NotImplementedError: components["schemas"]["Error"] & {
            /** @constant */
            code?: "not_implemented";
            /** @constant */
            status?: 501;
        };
        /**
         * @description An answer API Gateway gives itself (throttling, a body over 10 MB, a failed or timed-out
         *     function). Not the `Error` shape: it has no `code` and no `status`.
         */
        GatewayMessage: {
            /** @description API Gateway's wording, for example `Too Many Requests`. */
            message: string;
        };
    };
    responses: {
        /**
         * @description `invalid_json`: the body is not well-formed JSON or not UTF-8.
         *     `invalid_body`: the body is missing or empty, is not a JSON object, lacks `name`, has a
         *     field other than `name` and `description` (named in the message), or a field breaks its
         *     rule (the message names the field and the rule).
         *     `invalid_idempotency_key`: the `Idempotency-Key` header is not 1 to 255 printable ASCII
         *     characters.
         *     `bad_request`: the HTTP request itself is malformed (for example no `Host` header); the
         *     local server answers this, API Gateway answers such requests itself.
         */
        BadRequest: {
            headers: {
                "Cache-Control": components["headers"]["CacheControl"];
                "X-Content-Type-Options": components["headers"]["XContentTypeOptions"];
                "Request-Id": components["headers"]["RequestId"];
                "RateLimit-Policy": components["headers"]["ServiceRateLimitPolicy"];
                RateLimit: components["headers"]["ServiceRateLimit"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "code": "invalid_body",
                 *       "message": "'name' is required",
                 *       "status": 400
                 *     }
                 */
                "application/json": components["schemas"]["Error"] & {
                    /** @enum {unknown} */
                    code?: "invalid_json" | "invalid_body" | "invalid_idempotency_key" | "bad_request";
                    /** @constant */
                    status?: 400;
                };
            };
        };
        /**
         * @description The `Authorization` header is missing or not the Bearer scheme, or the key is unknown,
         *     revoked or expired. Checked before the body, so a bad body without a valid key gets 401.
         */
        Unauthorized: {
            headers: {
                "Cache-Control": components["headers"]["CacheControl"];
                "X-Content-Type-Options": components["headers"]["XContentTypeOptions"];
                "Request-Id": components["headers"]["RequestId"];
                "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "code": "unauthorized",
                 *       "message": "the API key was not accepted",
                 *       "status": 401
                 *     }
                 */
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "unauthorized";
                    /** @constant */
                    status?: 401;
                };
            };
        };
        /**
         * @description `insufficient_scope`: the key is valid but lacks the scope this operation needs (its
         *     `security` requirement names it); `WWW-Authenticate` names it too. Checked after
         *     authentication and before the body.
         */
        Forbidden: {
            headers: {
                "Cache-Control": components["headers"]["CacheControl"];
                "X-Content-Type-Options": components["headers"]["XContentTypeOptions"];
                "Request-Id": components["headers"]["RequestId"];
                "WWW-Authenticate": components["headers"]["InsufficientScope"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "code": "insufficient_scope",
                 *       "message": "this API key lacks the scope categories:write",
                 *       "status": 403
                 *     }
                 */
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "insufficient_scope";
                    /** @constant */
                    status?: 403;
                };
            };
        };
        /**
         * @description The list is too large to send uncompressed (over the platform's 6 MB response limit) and
         *     the request's `Accept-Encoding` allows neither `br` nor `gzip`. Retry with
         *     `Accept-Encoding: gzip` or `br`.
         */
        ResponseTooLarge: {
            headers: {
                Vary: components["headers"]["Vary"];
                "Cache-Control": components["headers"]["CacheControl"];
                "X-Content-Type-Options": components["headers"]["XContentTypeOptions"];
                "Request-Id": components["headers"]["RequestId"];
                "RateLimit-Policy": components["headers"]["ServiceRateLimitPolicy"];
                RateLimit: components["headers"]["ServiceRateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "response_too_large";
                    /** @constant */
                    status?: 406;
                };
            };
        };
        /**
         * @description The request repeats an `Idempotency-Key` whose first request is still being processed.
         *     Retry after the delay in `Retry-After`.
         */
        IdempotencyInProgress: {
            headers: {
                "Cache-Control": components["headers"]["CacheControl"];
                "X-Content-Type-Options": components["headers"]["XContentTypeOptions"];
                "Request-Id": components["headers"]["RequestId"];
                "Retry-After": components["headers"]["RetryAfter"];
                "RateLimit-Policy": components["headers"]["ServiceRateLimitPolicy"];
                RateLimit: components["headers"]["ServiceRateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "idempotency_in_progress";
                    /** @constant */
                    status?: 409;
                };
            };
        };
        /**
         * @description The service's `payload_too_large`: the request body is over 64 KiB. Or API Gateway's own
         *     answer (a `GatewayMessage`) when the body is over 10 MB.
         */
        PayloadTooLarge: {
            headers: {
                "Cache-Control": components["headers"]["ServiceCacheControl"];
                "X-Content-Type-Options": components["headers"]["ServiceXContentTypeOptions"];
                "Request-Id": components["headers"]["ServiceRequestId"];
                "RateLimit-Policy": components["headers"]["ServiceRateLimitPolicy"];
                RateLimit: components["headers"]["ServiceRateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/json": (components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "payload_too_large";
                    /** @constant */
                    status?: 413;
                }) | components["schemas"]["GatewayMessage"];
            };
        };
        /**
         * @description The request's `Content-Type` is present and is not JSON (`application/json` or
         *     `application/*+json`, parameters allowed). A request without `Content-Type` is read as
         *     JSON.
         */
        UnsupportedMediaType: {
            headers: {
                "Cache-Control": components["headers"]["CacheControl"];
                "X-Content-Type-Options": components["headers"]["XContentTypeOptions"];
                "Request-Id": components["headers"]["RequestId"];
                "RateLimit-Policy": components["headers"]["ServiceRateLimitPolicy"];
                RateLimit: components["headers"]["ServiceRateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "unsupported_media_type";
                    /** @constant */
                    status?: 415;
                };
            };
        };
        /** @description The request repeats an `Idempotency-Key` with a different body. */
        IdempotencyKeyReused: {
            headers: {
                "Cache-Control": components["headers"]["CacheControl"];
                "X-Content-Type-Options": components["headers"]["XContentTypeOptions"];
                "Request-Id": components["headers"]["RequestId"];
                "RateLimit-Policy": components["headers"]["ServiceRateLimitPolicy"];
                RateLimit: components["headers"]["ServiceRateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "idempotency_key_reused";
                    /** @constant */
                    status?: 422;
                };
            };
        };
        /**
         * @description The service's `internal_error`: something unexpected; the detail goes to the service's
         *     log, not the client. Or API Gateway's own answer (a `GatewayMessage`) when a function
         *     failed without answering.
         */
        InternalError: {
            headers: {
                "Cache-Control": components["headers"]["ServiceCacheControl"];
                "X-Content-Type-Options": components["headers"]["ServiceXContentTypeOptions"];
                "Request-Id": components["headers"]["ServiceRequestId"];
                "RateLimit-Policy": components["headers"]["ServiceRateLimitPolicy"];
                RateLimit: components["headers"]["ServiceRateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/json": (components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "internal_error";
                    /** @constant */
                    status?: 500;
                }) | components["schemas"]["GatewayMessage"];
            };
        };
        /**
         * @description The service's `service_unavailable`: the store is throttling or unreachable after retries
         *     within the request's time budget; retry after the delay in `Retry-After`. Or API
         *     Gateway's own answer (a `GatewayMessage`, no `Retry-After`) when the function could not
         *     be invoked or did not answer in time; retry with backoff.
         */
        ServiceUnavailable: {
            headers: {
                "Cache-Control": components["headers"]["ServiceCacheControl"];
                "X-Content-Type-Options": components["headers"]["ServiceXContentTypeOptions"];
                "Request-Id": components["headers"]["ServiceRequestId"];
                /** @description Seconds to wait before retrying; on the service's 503, absent on API Gateway's. */
                "Retry-After"?: number;
                "RateLimit-Policy": components["headers"]["ServiceRateLimitPolicy"];
                RateLimit: components["headers"]["ServiceRateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/json": (components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "service_unavailable";
                    /** @constant */
                    status?: 503;
                }) | components["schemas"]["GatewayMessage"];
            };
        };
        /**
         * @description The request (headers and body) did not arrive within API Gateway's 30 s: the local server
         *     answers `request_timeout`; API Gateway answers such requests itself (a `GatewayMessage`).
         */
        RequestTimeout: {
            headers: {
                "Cache-Control": components["headers"]["ServiceCacheControl"];
                "X-Content-Type-Options": components["headers"]["ServiceXContentTypeOptions"];
                "Request-Id": components["headers"]["ServiceRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": (components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "request_timeout";
                    /** @constant */
                    status?: 408;
                }) | components["schemas"]["GatewayMessage"];
            };
        };
        /**
         * @description The request headers are too large: the local server answers
         *     `request_header_fields_too_large`; API Gateway answers such requests itself (a
         *     `GatewayMessage`).
         */
        RequestHeaderFieldsTooLarge: {
            headers: {
                "Cache-Control": components["headers"]["ServiceCacheControl"];
                "X-Content-Type-Options": components["headers"]["ServiceXContentTypeOptions"];
                "Request-Id": components["headers"]["ServiceRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": (components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "request_header_fields_too_large";
                    /** @constant */
                    status?: 431;
                }) | components["schemas"]["GatewayMessage"];
            };
        };
        /**
         * @description The service's `rate_limited`: the API key has used its rate limit (a token bucket per key,
         *     `RateLimit-Policy`); retry after the delay in `Retry-After` (whole seconds, at least 1).
         *     Nothing was done for the request. Or API Gateway's own answer (a `GatewayMessage`, no
         *     `Retry-After`) when the whole stage's request rate or burst limit is exceeded; retry with
         *     exponential backoff and jitter.
         */
        TooManyRequests: {
            headers: {
                "Cache-Control": components["headers"]["ServiceCacheControl"];
                "X-Content-Type-Options": components["headers"]["ServiceXContentTypeOptions"];
                /**
                 * @description Seconds to wait before retrying (at least 1); on the service's 429, absent on API
                 *     Gateway's.
                 */
                "Retry-After"?: number;
                "RateLimit-Policy": components["headers"]["ServiceRateLimitPolicy"];
                RateLimit: components["headers"]["ServiceRateLimit"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "code": "rate_limited",
                 *       "message": "this API key has used its rate limit; retry after the delay in the Retry-After header",
                 *       "status": 429
                 *     }
                 */
                "application/json": (components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "rate_limited";
                    /** @constant */
                    status?: 429;
                }) | components["schemas"]["GatewayMessage"];
            };
        };
        /** @description API Gateway's own answer (a `GatewayMessage`) when the integration timed out. */
        GatewayTimeout: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Endpoint request timed out"
                 *     }
                 */
                "application/json": components["schemas"]["GatewayMessage"];
            };
        };
    };
    parameters: {
        /**
         * @description The `ETag` of a list the client holds (or `*`, or several, comma-separated): if one names
         *     the current list in the coding this request negotiates, the answer is 304 with no body.
         */
        IfNoneMatch: string;
        /**
         * @description Makes a retried POST safe: 1 to 255 printable ASCII characters, chosen by the client
         *     (a UUID is a good choice). Kept for 24 hours per API key. Any other value gets 400
         *     `invalid_idempotency_key`.
         */
        IdempotencyKey: string;
    };
    requestBodies: never;
    headers: {
        /** @description The list may be kept, but only used after revalidation (`If-None-Match`). */
        ListCacheControl: "private, no-cache";
        /**
         * @description Names the list's version and the content coding the request's `Accept-Encoding` chose
         *     (each coding has its own tag; a list under 1 KiB, sent uncompressed, keeps that tag, so
         *     that a 304 needs only the version). Changes whenever a category is added. Weak: compare
         *     with weak comparison.
         */
        ListETag: string;
        /** @description Responses are never cached (every answer but the list's 200 and 304). */
        CacheControl: "no-store";
        /** @description Clients must not sniff the media type. */
        XContentTypeOptions: "nosniff";
        /**
         * @description Present when the body is compressed: the body is 1 KiB or more and the request's
         *     `Accept-Encoding` allows `br` or `gzip` (`br` preferred at equal weight).
         */
        ContentEncoding: "br" | "gzip";
        /**
         * @description Present on bodies of 1 KiB or more, whose encoding depends on `Accept-Encoding`, on
         *     every list answer, whose `ETag` does, and on the list's 406, which another
         *     `Accept-Encoding` avoids.
         */
        Vary: "accept-encoding";
        /**
         * @description `true` when this response is a replay of the stored response to an earlier request with
         *     the same `Idempotency-Key` and body; absent otherwise.
         */
        IdempotentReplayed: "true";
        /** @description Seconds to wait before retrying. */
        RetryAfter: number;
        /**
         * @description `Bearer realm="petstore"`, with `, error="invalid_token"` when a key was presented but
         *     not accepted.
         */
        WwwAuthenticate: string;
        /**
         * @description API Gateway's id for this request (the same value as its `apigw-requestid` header): quote
         *     it when asking about a request. The service's logs and the stage's access log name it.
         */
        RequestId: string;
        /**
         * @description The request's id on the service's answers (see `RequestId`); API Gateway's own answers of
         *     the same status carry only `apigw-requestid`.
         */
        ServiceRequestId: string;
        /**
         * @description RFC 6750 §3.1: the key is valid but lacks the scope the operation needs, which `scope`
         *     names.
         */
        InsufficientScope: string;
        /** @description RFC 8594, on the 410: when the resource went away, as an HTTP-date. */
        SunsetPassed: string;
        /**
         * @description RFC 9745: when the resource was deprecated, as a structured-field date
         *     (`@` and seconds since the epoch).
         */
        Deprecation: string;
        /**
         * @description RFC 8594: when the resource goes away, as an HTTP-date. Present only when a sunset date
         *     is configured.
         */
        Sunset: string;
        /**
         * @description The operation's stability marking (its `x-stability`), on every answer the service gives
         *     for a `beta` or `experimental` operation. Stable operations send none.
         */
        Stability: "beta" | "experimental";
        /**
         * @description The API key's rate limit (draft-ietf-httpapi-ratelimit-headers, an RFC 9651 Structured
         *     Field): `"default";q=<requests>;w=<seconds>`, the key's sustained rate: `q` requests per
         *     `w` seconds (`<n>/s` is `q=n;w=1`, `<n>/min` is `q=n;w=60`). The limit is a token bucket:
         *     up to its burst may come at once (`RateLimit`'s `r` can reach it), then `q` per `w`. On every answer the service gives to a request with a valid
         *     key; absent on 401s and on API Gateway's own answers.
         */
        RateLimitPolicy: string;
        /**
         * @description What is left of the key's rate limit after this request (draft-ietf-httpapi-ratelimit-headers,
         *     an RFC 9651 Structured Field): `"default";r=<remaining>;t=<seconds>`, `r` requests left
         *     now and `t` seconds until the whole burst is available again (on a 429: until the next
         *     request may be admitted). An estimate: the limit is shared by every server of the stage.
         */
        RateLimit: string;
        /**
         * @description `RateLimit-Policy` (above) on the service's answers to a request with a valid key; absent
         *     when the key was not checked (the local server's own 400, 408 and 431) and on API
         *     Gateway's own answers.
         */
        ServiceRateLimitPolicy: string;
        /**
         * @description `RateLimit` (above) on the service's answers to a request with a valid key; absent when
         *     the key was not checked and on API Gateway's own answers.
         */
        ServiceRateLimit: string;
        /**
         * @description `no-store` on the service's answers; API Gateway's own answers of the same status
         *     carry none.
         */
        ServiceCacheControl: "no-store";
        /**
         * @description `nosniff` on the service's answers; API Gateway's own answers of the same status carry
         *     none.
         */
        ServiceXContentTypeOptions: "nosniff";
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listCategories: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description The `ETag` of a list the client holds (or `*`, or several, comma-separated): if one names
                 *     the current list in the coding this request negotiates, the answer is 304 with no body.
                 */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description A JSON array of every Category, in `id` order. Compressed (`Content-Encoding: br` or
             *     `gzip`) when the body is 1 KiB or more and `Accept-Encoding` allows it.
             */
            200: {
                headers: {
                    "Cache-Control": components["headers"]["ListCacheControl"];
                    ETag: components["headers"]["ListETag"];
                    "X-Content-Type-Options": components["headers"]["XContentTypeOptions"];
                    "Request-Id": components["headers"]["RequestId"];
                    "Content-Encoding": components["headers"]["ContentEncoding"];
                    Vary: components["headers"]["Vary"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": 1,
                     *         "name": "dog",
                     *         "description": "Domestic dogs of every breed."
                     *       },
                     *       {
                     *         "id": 2,
                     *         "name": "cat"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Category"][];
                };
            };
            /**
             * @description Not Modified: `If-None-Match` names the current tag, so the copy the client holds is
             *     the current list. No body.
             */
            304: {
                headers: {
                    "Cache-Control": components["headers"]["ListCacheControl"];
                    "Request-Id": components["headers"]["RequestId"];
                    ETag: components["headers"]["ListETag"];
                    Vary: components["headers"]["Vary"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["ResponseTooLarge"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
            504: components["responses"]["GatewayTimeout"];
        };
    };
    createCategory: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes a retried POST safe: 1 to 255 printable ASCII characters, chosen by the client
                 *     (a UUID is a good choice). Kept for 24 hours per API key. Any other value gets 400
                 *     `invalid_idempotency_key`.
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        /**
         * @description One NewCategory. A request without `Content-Type` is read as JSON; any JSON media type
         *     (`application/json` or `application/*+json`, parameters such as `charset=utf-8`
         *     allowed, a charset other than UTF-8 not) is accepted. Not compressed: a body with a
         *     `Content-Encoding` is refused (415). At most 64 KiB.
         */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "rabbit",
                 *       "description": "Rabbits and hares."
                 *     }
                 */
                "application/json": components["schemas"]["NewCategory"];
            };
        };
        responses: {
            /**
             * @description The stored Category, `id` included. `Idempotent-Replayed: true` when this is a replay
             *     of an earlier request with the same `Idempotency-Key`.
             */
            201: {
                headers: {
                    "Cache-Control": components["headers"]["CacheControl"];
                    "X-Content-Type-Options": components["headers"]["XContentTypeOptions"];
                    "Request-Id": components["headers"]["RequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    "Content-Encoding": components["headers"]["ContentEncoding"];
                    Vary: components["headers"]["Vary"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 3,
                     *       "name": "rabbit",
                     *       "description": "Rabbits and hares."
                     *     }
                     */
                    "application/json": components["schemas"]["Category"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["IdempotencyInProgress"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
            504: components["responses"]["GatewayTimeout"];
        };
    };
    getPet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The pet's identifier (any non-empty path segment). */
                petId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            401: components["responses"]["Unauthorized"];
            408: components["responses"]["RequestTimeout"];
            /** @description The pets API was withdrawn: its sunset date (the `Sunset` header) has passed. */
            410: {
                headers: {
                    "Cache-Control": components["headers"]["CacheControl"];
                    "X-Content-Type-Options": components["headers"]["XContentTypeOptions"];
                    "Request-Id": components["headers"]["RequestId"];
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["SunsetPassed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @constant */
                        code?: "gone";
                        /** @constant */
                        status?: 410;
                    };
                };
            };
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalError"];
            /** @description The pets API is not implemented in this version. */
            501: {
                headers: {
                    "Cache-Control": components["headers"]["CacheControl"];
                    "X-Content-Type-Options": components["headers"]["XContentTypeOptions"];
                    "Request-Id": components["headers"]["RequestId"];
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotImplementedError"];
                };
            };
            503: components["responses"]["ServiceUnavailable"];
            504: components["responses"]["GatewayTimeout"];
        };
    };
    listStoreOrders: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            401: components["responses"]["Unauthorized"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalError"];
            /** @description The store orders API is not implemented in this version. */
            501: {
                headers: {
                    "Cache-Control": components["headers"]["CacheControl"];
                    "X-Content-Type-Options": components["headers"]["XContentTypeOptions"];
                    "Request-Id": components["headers"]["RequestId"];
                    Stability: components["headers"]["Stability"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotImplementedError"];
                };
            };
            503: components["responses"]["ServiceUnavailable"];
            504: components["responses"]["GatewayTimeout"];
        };
    };
}
