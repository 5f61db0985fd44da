// libqrencode (Debian's libqrencode-dev): the join address's QR code on the presenter's screen.
#include <qrencode.h>
