// BlueZ's libbluetooth (raw HCI sockets) as Swift sees it.
#ifndef NEARCAST_CBLUETOOTH_SHIM_H
#define NEARCAST_CBLUETOOTH_SHIM_H

#include <sys/ioctl.h>
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>

// Byte-order and opcode macros.
static inline uint16_t nearcast_htobs(uint16_t v) { return htobs(v); }
static inline uint16_t nearcast_btohs(uint16_t v) { return btohs(v); }
static inline uint16_t nearcast_cmd_opcode_pack(uint16_t ogf, uint16_t ocf) {
    return cmd_opcode_pack(ogf, ocf);
}

// The HCI ioctl request numbers are _IOW/_IOR macros.
static inline unsigned long nearcast_hcidevup(void) { return HCIDEVUP; }
static inline unsigned long nearcast_hcidevdown(void) { return HCIDEVDOWN; }
static inline unsigned long nearcast_hcigetdevinfo(void) { return HCIGETDEVINFO; }

// HCI socket filter helpers are static inline already, but take the filter by pointer;
// these spell the usual "all events of one packet type" filter in one call.
static inline int nearcast_hci_set_event_filter(int fd) {
    struct hci_filter filter;
    hci_filter_clear(&filter);
    hci_filter_set_ptype(HCI_EVENT_PKT, &filter);
    hci_filter_all_events(&filter);
    return setsockopt(fd, SOL_HCI, HCI_FILTER, &filter, sizeof(filter));
}

#endif
