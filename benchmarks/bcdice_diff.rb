# frozen_string_literal: true

# The BCDice side of benchmarks/bcdice_diff.py: reads JSON lines {"system", "input",
# "seed"} on stdin and writes one JSON line per case with BCDice's answer. Dice come
# from a 64-bit LCG seeded by the case, the same generator the Python side injects
# into gm, so both engines see the same faces for the same sequence of sides.
#
# usage: ruby bcdice_diff.rb BCDICE_DIR < cases.jsonl > answers.jsonl

require "json"
require "timeout"

dir = ARGV.fetch(0) { abort("usage: ruby bcdice_diff.rb BCDICE_DIR") }
$LOAD_PATH.unshift(File.join(dir, "lib"))
require "bcdice"
require "bcdice/game_system"

# Faces from a 64-bit linear congruential generator (Knuth's MMIX constants).
class LcgRandomizer < BCDice::Randomizer
  MASK = (1 << 64) - 1

  def initialize(seed)
    super()
    @state = seed & MASK
  end

  def random(sides)
    @state = (@state * 6_364_136_223_846_793_005 + 1_442_695_040_888_963_407) & MASK
    ((@state >> 33) % sides) + 1
  end
end

$stdout.sync = false
$stdin.each_line do |raw|
  c = JSON.parse(raw)
  klass = BCDice.game_system_class(c["system"]) or abort("unknown system #{c['system']}")
  answer =
    begin
      Timeout.timeout(5) do
        game = klass.new(c["input"])
        game.randomizer = LcgRandomizer.new(c["seed"])
        r = game.eval
        if r.nil?
          { "none" => true }
        else
          {
            "text" => r.text.to_s, "secret" => r.secret?, "success" => r.success?,
            "failure" => r.failure?, "critical" => r.critical?, "fumble" => r.fumble?,
            "rands" => r.rands || []
          }
        end
      end
    rescue Timeout::Error
      { "error" => "Timeout" }
    rescue StandardError, SystemStackError => e
      { "error" => e.class.name }
    end
  puts JSON.generate(answer)
end
