"""tools/vm/layout-gpio-sim on a made-up source tree: the module's files, its Makefile, the
irq_to_desc patch, and the failures that must stop `tools/vm/vm-board setup` with a reason."""
import os
import subprocess
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "layout-gpio-sim")

# The lines of linux-source-6.1's kernel/irq/irq_sim.c that matter: the call the patch replaces
# (line 113) and a use of handle_simple_irq that it must leave alone (line 129).
IRQ_SIM_C = """#include <linux/irq.h>
static void irq_sim_handle_irq(struct irq_work *work)
{
\t\tirqnum = irq_find_mapping(work_ctx->domain, offset);
\t\thandle_simple_irq(irq_to_desc(irqnum));
}
static int irq_sim_domain_map(struct irq_domain *domain, unsigned int virq, irq_hw_number_t hw)
{
\tirq_set_handler(virq, handle_simple_irq);
}
"""


class LayoutGpioSimTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.src = os.path.join(self.dir.name, "linux")
        self.out = os.path.join(self.dir.name, "module")
        self.write("drivers/gpio/gpio-sim.c", "// gpio-sim.c\n")
        self.write("drivers/gpio/gpiolib.h", "// gpiolib.h\n")
        self.write("kernel/irq/irq_sim.c", IRQ_SIM_C)

    def tearDown(self):
        self.dir.cleanup()

    def write(self, path, text):
        path = os.path.join(self.src, path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def read(self, name):
        with open(os.path.join(self.out, name)) as f:
            return f.read()

    def layout(self, *args):
        return subprocess.run([SCRIPT, *(args or (self.src, self.out))], capture_output=True, text=True)

    def test_lays_out_one_module_of_both_files(self):
        run = self.layout()
        self.assertEqual((run.returncode, run.stderr), (0, ""))
        self.assertEqual(sorted(os.listdir(self.out)), ["Makefile", "gpio-sim-main.c", "gpiolib.h", "irq_sim.c"])
        self.assertEqual(self.read("gpio-sim-main.c"), "// gpio-sim.c\n")
        self.assertEqual(self.read("gpiolib.h"), "// gpiolib.h\n")
        # kbuild's Makefile: one module of two objects, gpiolib.h found beside them.
        self.assertEqual(self.read("Makefile"),
                         "obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\nccflags-y := -I$(src)\n")
        # Moved, not copied: the source tree is a scratch copy and may be large.
        self.assertFalse(os.path.exists(os.path.join(self.src, "drivers/gpio/gpio-sim.c")))

    def test_the_unexported_call_is_replaced_and_nothing_else(self):
        self.assertEqual(self.layout().returncode, 0)
        self.assertEqual(self.read("irq_sim.c"), IRQ_SIM_C.replace(
            "handle_simple_irq(irq_to_desc(irqnum));", "generic_handle_irq(irqnum);"))

    def test_a_call_the_patch_does_not_know_stops_with_the_line(self):
        # Say a later kernel keeps the descriptor in a variable: the call is still there, unpatched.
        self.write("kernel/irq/irq_sim.c", IRQ_SIM_C.replace(
            "handle_simple_irq(irq_to_desc(irqnum));",
            "desc = irq_to_desc(irqnum);\n\t\thandle_simple_irq(desc);"))
        run = self.layout()
        self.assertEqual(run.returncode, 1)
        self.assertIn("5:\t\tdesc = irq_to_desc(irqnum);", run.stderr)
        self.assertIn("irq_sim.c still calls irq_to_desc() (above) after the patch", run.stderr)
        self.assertIn("update the patch in tools/vm/layout-gpio-sim", run.stderr)

    def test_a_missing_source_file_is_named(self):
        os.remove(os.path.join(self.src, "drivers/gpio/gpiolib.h"))
        run = self.layout()
        self.assertEqual(run.returncode, 1)
        self.assertEqual(run.stderr, "layout-gpio-sim: %s/drivers/gpio/gpiolib.h is missing\n" % self.src)
        self.assertFalse(os.path.exists(self.out))   # nothing half laid out

    def test_usage(self):
        run = self.layout(self.src)
        self.assertEqual(run.returncode, 2)
        self.assertIn("tools/vm/layout-gpio-sim SRC DIR", run.stderr)


if __name__ == "__main__":
    unittest.main()
