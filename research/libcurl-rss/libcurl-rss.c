/* What libcurl in the daemon's process would cost in resident memory (research/libcurl-rss/bench-libcurl-rss).
 * Prints VmRSS at start, after curl_global_init, and after three requests to URL made through
 * the multi interface as the daemon's loop would drive it. Built twice: without WITH_CURL it
 * prints the baseline of a plain C process. */
#include <stdio.h>
#include <string.h>
#ifdef WITH_CURL
#include <curl/curl.h>

static size_t discard(char *data, size_t size, size_t count, void *user) {
    (void)data; (void)user;
    return size * count;
}
#endif

static void report(const char *when) {
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    while (status && fgets(line, sizeof line, status))
        if (!strncmp(line, "VmRSS:", 6)) printf("%s %s", when, line + 6);
    if (status) fclose(status);
}

int main(int argc, char **argv) {
    report("start");
#ifdef WITH_CURL
    if (argc < 2) { fprintf(stderr, "usage: %s URL [CA-FILE]\n", argv[0]); return 2; }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    report("init");
    CURLM *multi = curl_multi_init();
    int failures = 0;
    for (int i = 0; i < 3; i++) {
        CURL *easy = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_URL, argv[1]);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
        if (argc > 2) curl_easy_setopt(easy, CURLOPT_CAINFO, argv[2]);
        curl_multi_add_handle(multi, easy);
        int running = 1;
        while (running) {
            curl_multi_perform(multi, &running);
            curl_multi_poll(multi, NULL, 0, 100, NULL);
        }
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(multi, &queued)))
            if (message->msg == CURLMSG_DONE && message->data.result != CURLE_OK) {
                fprintf(stderr, "request failed: %s\n", curl_easy_strerror(message->data.result));
                failures++;
            }
        curl_multi_remove_handle(multi, easy);
        curl_easy_cleanup(easy);
    }
    report("requests");
    curl_multi_cleanup(multi);
    return failures ? 1 : 0;
#else
    (void)argc; (void)argv;
    return 0;
#endif
}
