/*
 * A test oracle, never part of the product: libfreefare (Debian's libfreefare-dev 0.4) judges
 * a MIFARE DESFire's keys through real libnfc. libfreefare's command-line tools take DES keys
 * only; its library authenticates with AES (mifare_desfire_authenticate_aes) and 3DES keys, so
 * this small program does what the tools cannot:
 *
 *   desfire_key_judge picc|application des|2k3des|3k3des|aes < keyhex
 *
 * The key's hex digits come on standard input (never on the command line). It selects the PICC
 * level or the NFC Forum Type 4 application 000001 (NXP AN11004), authenticates with key 0,
 * then prints, one "name: value" a line, what libfreefare reads inside that session:
 *   authenticated: yes
 *   key settings: SS (number of keys NN: libfreefare gives bits 3-0 only)
 *   key version: VV
 *   applications: N                       (picc)
 *   cc: <15 bytes hex>                     (application: file 01)
 *   ndef file: <size> bytes, access AAAA   (application: file 02's settings)
 *   ndef: <NLEN bytes of the message hex>  (application: file 02)
 * Exit 0 when all of it was read; 2 when the key was refused; 3 for no DESFire; 1 otherwise.
 * libnfc's device comes from the environment (LIBNFC_DEFAULT_DEVICE), as for the libnfc tools.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <freefare.h>
#include <nfc/nfc.h>

/* libfreefare 0.4's read_data in an authenticated session copies the answer with its CMAC (and
 * status) into the caller's buffer before taking them off: every buffer gets this much room. */
#define MAC_ROOM 32

static int read_key(uint8_t *key, size_t want) {
    char line[256];
    size_t count = 0;
    int high = -1;
    while (fgets(line, sizeof line, stdin)) {
        for (char *c = line; *c; c++) {
            if (!isxdigit((unsigned char)*c)) continue;
            int nibble = isdigit((unsigned char)*c) ? *c - '0' : (tolower((unsigned char)*c) - 'a' + 10);
            if (high < 0) { high = nibble; continue; }
            if (count == want) return -1;
            key[count++] = (uint8_t)(high << 4 | nibble);
            high = -1;
        }
    }
    return count == want && high < 0 ? 0 : -1;
}

static void print_hex(const char *name, const uint8_t *bytes, size_t count) {
    printf("%s: ", name);
    for (size_t i = 0; i < count; i++) printf("%02X", bytes[i]);
    printf("\n");
}

int main(int argc, char *argv[]) {
    if (argc != 3 || (strcmp(argv[1], "picc") && strcmp(argv[1], "application"))) {
        fprintf(stderr, "usage: %s picc|application des|2k3des|3k3des|aes < keyhex\n", argv[0]);
        return 1;
    }
    int application = strcmp(argv[1], "application") == 0;
    const char *type = argv[2];
    size_t length = !strcmp(type, "des") ? 8 : !strcmp(type, "3k3des") ? 24 : (!strcmp(type, "2k3des") || !strcmp(type, "aes")) ? 16 : 0;
    uint8_t bytes[24];
    if (!length || read_key(bytes, length) != 0) {
        fprintf(stderr, "the key on standard input is not a %s key\n", type);
        return 1;
    }
    MifareDESFireKey key = !strcmp(type, "des") ? mifare_desfire_des_key_new_with_version(bytes)
                         : !strcmp(type, "2k3des") ? mifare_desfire_3des_key_new_with_version(bytes)
                         : !strcmp(type, "3k3des") ? mifare_desfire_3k3des_key_new_with_version(bytes)
                         : mifare_desfire_aes_key_new(bytes);
    memset(bytes, 0, sizeof bytes);

    nfc_context *context;
    nfc_init(&context);
    if (!context) { fprintf(stderr, "nfc_init failed\n"); return 1; }
    nfc_device *device = nfc_open(context, NULL);
    if (!device) { fprintf(stderr, "nfc_open failed\n"); nfc_exit(context); return 1; }
    MifareTag *tags = freefare_get_tags(device);
    MifareTag tag = NULL;
    for (int i = 0; tags && tags[i]; i++) {
        if (freefare_get_tag_type(tags[i]) == DESFIRE) { tag = tags[i]; break; }
    }
    int status = 1;
    if (!tag) { fprintf(stderr, "no MIFARE DESFire found\n"); status = 3; goto done; }
    if (mifare_desfire_connect(tag) < 0) { fprintf(stderr, "connect: %s\n", freefare_strerror(tag)); goto done; }
    MifareDESFireAID aid = mifare_desfire_aid_new(application ? 0x000001 : 0x000000);
    int selected = mifare_desfire_select_application(tag, aid);
    free(aid);
    if (selected < 0) { fprintf(stderr, "select: %s\n", freefare_strerror(tag)); goto disconnect; }
    int authenticated = !strcmp(type, "aes") ? mifare_desfire_authenticate_aes(tag, 0, key)
                      : !strcmp(type, "3k3des") ? mifare_desfire_authenticate_iso(tag, 0, key)
                      : mifare_desfire_authenticate(tag, 0, key);
    if (authenticated < 0) {
        fprintf(stderr, "authenticate: %s (PICC error %02X)\n", freefare_strerror(tag), mifare_desfire_last_picc_error(tag));
        status = 2;
        goto disconnect;
    }
    printf("authenticated: yes\n");
    uint8_t settings = 0, keys = 0, version = 0;
    if (mifare_desfire_get_key_settings(tag, &settings, &keys) < 0) { fprintf(stderr, "key settings: %s\n", freefare_strerror(tag)); goto disconnect; }
    printf("key settings: %02X (number of keys %02X)\n", settings, keys);
    if (mifare_desfire_get_key_version(tag, 0, &version) < 0) { fprintf(stderr, "key version: %s\n", freefare_strerror(tag)); goto disconnect; }
    printf("key version: %02X\n", version);
    if (!application) {
        MifareDESFireAID *aids = NULL;
        size_t count = 0;
        if (mifare_desfire_get_application_ids(tag, &aids, &count) < 0) { fprintf(stderr, "application IDs: %s\n", freefare_strerror(tag)); goto disconnect; }
        printf("applications: %zu\n", count);
        if (aids) mifare_desfire_free_application_ids(aids);
        status = 0;
        goto disconnect;
    }
    uint8_t cc[15 + MAC_ROOM];
    if (mifare_desfire_read_data(tag, 1, 0, 15, cc) != 15) { fprintf(stderr, "read CC: %s\n", freefare_strerror(tag)); goto disconnect; }
    print_hex("cc", cc, 15);
    struct mifare_desfire_file_settings file;
    if (mifare_desfire_get_file_settings(tag, 2, &file) < 0) { fprintf(stderr, "file settings: %s\n", freefare_strerror(tag)); goto disconnect; }
    printf("ndef file: %u bytes, access %04X\n", (unsigned)file.settings.standard_file.file_size, file.access_rights);
    uint8_t nlen[2 + MAC_ROOM];
    if (mifare_desfire_read_data(tag, 2, 0, 2, nlen) != 2) { fprintf(stderr, "read NLEN: %s\n", freefare_strerror(tag)); goto disconnect; }
    size_t size = (size_t)nlen[0] << 8 | nlen[1];
    if (size + 2 > file.settings.standard_file.file_size) { fprintf(stderr, "NLEN %zu past the file\n", size); goto disconnect; }
    uint8_t *message = malloc(size + MAC_ROOM);
    if (!message) goto disconnect;
    if (size && mifare_desfire_read_data(tag, 2, 2, size, message) != (ssize_t)size) {
        fprintf(stderr, "read NDEF: %s\n", freefare_strerror(tag));
        free(message);
        goto disconnect;
    }
    print_hex("ndef", message, size);
    free(message);
    status = 0;
disconnect:
    mifare_desfire_disconnect(tag);
done:
    if (tags) freefare_free_tags(tags);
    mifare_desfire_key_free(key);
    nfc_close(device);
    nfc_exit(context);
    return status;
}
